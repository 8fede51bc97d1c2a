// An HTTP(S) proxy that refuses everything: a CLI run with HTTPS_PROXY/HTTP_PROXY pointing
// here cannot reach any host but loopback (NO_PROXY), and every host it tried is recorded.

import http from 'node:http';

export class ProxySink {
  constructor() {
    /** `{how, host}` per attempt: `CONNECT` (a TLS tunnel) or the plain request's method. */
    this.attempts = [];
    this.server = http.createServer((req, res) => {
      let host = req.headers.host ?? '';
      try {
        host = new URL(req.url).host || host;
      } catch {
        // Not an absolute URL: a client talking to the proxy as to a server.
      }
      this.attempts.push({ how: req.method, host });
      res.writeHead(403, { 'content-type': 'text/plain', connection: 'close' });
      res.end('refused by the test proxy sink\n');
    });
    this.server.on('connect', (req, socket) => {
      this.attempts.push({ how: 'CONNECT', host: req.url });
      socket.on('error', () => {});
      socket.end('HTTP/1.1 403 Forbidden\r\nconnection: close\r\n\r\n');
    });
    this.server.on('clientError', (_e, socket) => socket.destroy());
  }

  async start() {
    await new Promise((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${this.server.address().port}`;
    return this;
  }

  stop() {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(resolve));
  }

  /** The hosts (without port) tried since `from` attempts, sorted and unique. */
  hosts(from = 0) {
    const names = this.attempts.slice(from).map((a) => a.host.replace(/:\d+$/, ''));
    return [...new Set(names)].sort();
  }

  /** The proxy variables of a CLI's environment: every host but loopback goes here. */
  env() {
    const loopback = '127.0.0.1,localhost,::1';
    return {
      HTTPS_PROXY: this.url, HTTP_PROXY: this.url, ALL_PROXY: this.url,
      https_proxy: this.url, http_proxy: this.url, all_proxy: this.url,
      NO_PROXY: loopback, no_proxy: loopback,
    };
  }
}
