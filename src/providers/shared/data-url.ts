/** Inline bytes as a `data:` URL: how both OpenAI APIs take images and PDFs. */
export function dataUrl(mediaType: string, base64: string): string {
  return `data:${mediaType};base64,${base64}`
}
