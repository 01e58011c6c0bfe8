/**
 * The bulk scenarios' webhook receiver, run as its own process by scripts/bench/bulk.ts so
 * that its work (up to thousands of deliveries a second) does not share an event loop with
 * the bench's own clients: the other traffic's latencies are measured in the bench process,
 * and a receiver there would add its own lag to them.
 *
 * Listens on a free loopback port and prints it as one line; `POST /hooks` answers 204 and
 * counts the distinct event ids (at least once: a repeat counts once); `GET /count` answers
 * that count as text. Ends when its standard input closes (the bench ended or died).
 */
import { createServer } from 'node:http';

const seen = new Set();
const server = createServer((req, res) => {
  if (req.method === 'GET') {
    res.writeHead(200, { 'content-type': 'text/plain' }).end(String(seen.size));
    return;
  }
  let body = '';
  req.on('data', (chunk) => (body += chunk));
  req.on('end', () => {
    seen.add(JSON.parse(body).id);
    res.writeHead(204).end();
  });
});
server.keepAliveTimeout = 30_000;
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
