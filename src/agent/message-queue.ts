/** A FIFO queue with O(1) push and shift (an array with a moving head, compacted now and then). */
export class MessageQueue<T> {
  private items: T[] = []
  private head = 0

  get size(): number {
    return this.items.length - this.head
  }

  push(item: T): void {
    this.items.push(item)
  }

  shift(): T | undefined {
    if (this.head >= this.items.length)
      return undefined
    const item = this.items[this.head]
    this.items[this.head] = undefined as T
    this.head += 1
    // Drop the consumed prefix once it is most of the array, so memory stays bounded.
    if (this.head > 32 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head)
      this.head = 0
    }
    return item
  }

  /** Take every waiting item, oldest first, leaving the queue empty. */
  drain(): T[] {
    const items = this.items.slice(this.head)
    this.clear()
    return items
  }

  clear(): void {
    this.items = []
    this.head = 0
  }
}
