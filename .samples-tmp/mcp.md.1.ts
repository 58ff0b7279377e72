{ name: 'tracker', transport: 'streamable-http', url: 'https://mcp.example.com/mcp',
  headers: { 'x-api-key': '${TRACKER_KEY}' }, pinHeaderOrigin: true }

export {}
