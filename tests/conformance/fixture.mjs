#!/usr/bin/env node
// The conformance fixture: an MCP server with every tool, resource and prompt the official
// conformance suite's server scenarios call, for `make test-conformance` to run the suite
// against it directly (`--port N`, streamable HTTP) and through `lro proxy --listen` (`--stdio`,
// the gateway's child).
//
// Ported to plain JavaScript from the suite's own example server,
// examples/servers/typescript/everything-server.ts at tag v0.1.16 of
// https://github.com/modelcontextprotocol/conformance (the version package.json pins), so that
// the scenarios meet the server they were written against: its transports here, its tools,
// resources and prompts in fixture/ (one file per kind). What differs: the types are gone;
// two transports (stdio beside HTTP); the port is an argument (0: any free one) and the address
// is printed on stderr once listening; logging goes to stderr and only with --verbose (stdout is
// the stdio transport's); the event store orders its ids by a counter rather than by
// Date.now(), which two events of one millisecond share; no CORS middleware (no browser calls
// the fixture); the requests to the client name the call they serve (fixture/asking-tools.mjs
// says why).
//
// The example server is under this notice:
//
// MIT License
//
// Copyright (c) 2024-2025 Model Context Protocol a Series of LF Projects, LLC.
//
// Permission is hereby granted, free of charge, to any person obtaining a copy
// of this software and associated documentation files (the "Software"), to deal
// in the Software without restriction, including without limitation the rights
// to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
// copies of the Software, and to permit persons to whom the Software is
// furnished to do so, subject to the following conditions:
//
// The above copyright notice and this permission notice shall be included in all
// copies or substantial portions of the Software.
//
// THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
// IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
// FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
// AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
// LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
// OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
// SOFTWARE.

import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';

import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';

import { createMcpServer } from './fixture/everything.mjs';

const USAGE = 'usage: node fixture.mjs (--stdio | --port N) [--verbose] [--bench]';
const { values: options } = parseArgs({
  options: {
    stdio: { type: 'boolean', default: false },
    port: { type: 'string' },
    verbose: { type: 'boolean', default: false },
    bench: { type: 'boolean', default: false }
  }
});
if (options.stdio === (options.port !== undefined)) {
  console.error(USAGE);
  process.exit(2);
}

// stdout carries the stdio transport's messages: notes go to stderr, when asked for.
function log(...args) {
  if (options.verbose) {
    console.error(...args);
  }
}

// Session management (HTTP)
const transports = {};
const servers = {};

// In-memory event store for SEP-1699 resumability
const eventStoreData = new Map();
let eventCount = 0;

function createEventStore() {
  return {
    async storeEvent(streamId, message) {
      // Zero-padded, so that ids compare as strings in the order they were made.
      eventCount += 1;
      const eventId = `${streamId}::${String(eventCount).padStart(12, '0')}_${randomUUID()}`;
      eventStoreData.set(eventId, { eventId, message, streamId });
      return eventId;
    },
    async replayEventsAfter(lastEventId, { send }) {
      const streamId = lastEventId.split('::')[0];
      const eventsToReplay = [];
      for (const [eventId, data] of eventStoreData.entries()) {
        if (data.streamId === streamId && eventId > lastEventId) {
          eventsToReplay.push([eventId, data]);
        }
      }
      eventsToReplay.sort(([a], [b]) => a.localeCompare(b));
      for (const [eventId, { message }] of eventsToReplay) {
        if (Object.keys(message).length > 0) {
          await send(eventId, message);
        }
      }
      return streamId;
    }
  };
}


// Helper to check if request is an initialize request
function isInitializeRequest(body) {
  return body?.method === 'initialize';
}

// ===== STDIO =====

async function serveStdio() {
  const mcpServer = createMcpServer(transports, log, { bench: options.bench });
  await mcpServer.connect(new StdioServerTransport());
}

// ===== EXPRESS APP =====

async function serveHttp(port) {
  // Loaded here: over stdio, the gateway starts a fixture per session, and Express and the
  // HTTP transport would double its start-up time.
  const { StreamableHTTPServerTransport } = await import(
    '@modelcontextprotocol/sdk/server/streamableHttp.js'
  );
  const { createMcpExpressApp } = await import('@modelcontextprotocol/sdk/server/express.js');

  // Use createMcpExpressApp for DNS rebinding protection on localhost
  const app = createMcpExpressApp();

  // Handle POST requests - stateful mode
  app.post('/mcp', async (req, res) => {
    const sessionId = req.headers['mcp-session-id'];

    try {
      let transport;

      if (sessionId && transports[sessionId]) {
        // Reuse existing transport for established sessions
        transport = transports[sessionId];
      } else if (!sessionId && isInitializeRequest(req.body)) {
        // Create new transport for initialization requests
        const mcpServer = createMcpServer(transports, log, { bench: options.bench });

        transport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          eventStore: createEventStore(),
          retryInterval: 5000, // 5 second retry interval for SEP-1699
          onsessioninitialized: (newSessionId) => {
            transports[newSessionId] = transport;
            servers[newSessionId] = mcpServer;
            log(`Session initialized with ID: ${newSessionId}`);
          }
        });

        transport.onclose = () => {
          const sid = transport.sessionId;
          if (sid && transports[sid]) {
            delete transports[sid];
            if (servers[sid]) {
              servers[sid].close();
              delete servers[sid];
            }
            log(`Session ${sid} closed`);
          }
        };

        await mcpServer.connect(transport);
        await transport.handleRequest(req, res, req.body);
        return;
      } else {
        res.status(400).json({
          jsonrpc: '2.0',
          error: {
            code: -32000,
            message: 'Invalid or missing session ID'
          },
          id: null
        });
        return;
      }

      await transport.handleRequest(req, res, req.body);
    } catch (error) {
      console.error('Error handling MCP request:', error);
      if (!res.headersSent) {
        res.status(500).json({
          jsonrpc: '2.0',
          error: {
            code: -32603,
            message: 'Internal server error'
          },
          id: null
        });
      }
    }
  });

  // Handle GET requests - SSE streams for sessions
  app.get('/mcp', async (req, res) => {
    const sessionId = req.headers['mcp-session-id'];

    if (!sessionId || !transports[sessionId]) {
      res.status(400).send('Invalid or missing session ID');
      return;
    }

    const lastEventId = req.headers['last-event-id'];
    if (lastEventId) {
      log(`Client reconnecting with Last-Event-ID: ${lastEventId}`);
    } else {
      log(`Establishing SSE stream for session ${sessionId}`);
    }

    try {
      const transport = transports[sessionId];
      await transport.handleRequest(req, res);
    } catch (error) {
      console.error('Error handling SSE stream:', error);
      if (!res.headersSent) {
        res.status(500).send('Error establishing SSE stream');
      }
    }
  });

  // Handle DELETE requests - session termination
  app.delete('/mcp', async (req, res) => {
    const sessionId = req.headers['mcp-session-id'];

    if (!sessionId || !transports[sessionId]) {
      res.status(400).send('Invalid or missing session ID');
      return;
    }

    log(`Received session termination request for session ${sessionId}`);

    try {
      const transport = transports[sessionId];
      await transport.handleRequest(req, res);
    } catch (error) {
      console.error('Error handling termination:', error);
      if (!res.headersSent) {
        res.status(500).send('Error processing session termination');
      }
    }
  });

  // Loopback only, as createMcpExpressApp's Host check assumes; the address goes to stderr
  // for whoever started the fixture (port 0 picks a free one).
  const listener = app.listen(port, '127.0.0.1', (error) => {
    if (error) {
      console.error(`fixture: cannot listen on 127.0.0.1:${port}: ${error.message}`);
      process.exit(1);
    }
    const { port: bound } = listener.address();
    console.error(`fixture: listening on http://127.0.0.1:${bound}/mcp`);
  });
}

if (options.stdio) {
  await serveStdio();
} else {
  const port = Number(options.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(USAGE);
    process.exit(2);
  }
  await serveHttp(port);
}
