/**
 * Card data never leaks (issue 9): no PAN, CVV or PIN of any card the run created is in
 * a log line or in an answer other than a successful E6. Every response the tests receive
 * is recorded (test/support/client.ts) and every log line is in the run's log file; this
 * file searches them after a card's whole life, and the root `afterAll` hook
 * (test/support/service.ts) searches them again over the whole suite.
 */
import { appendFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { changeStatus, displaySession, issuedCard, otherCode, revealed, startDisplay, verifyDisplay } from './support/cards.js';
import { get } from './support/client.js';
import { newBusiness } from './support/fixtures.js';
import { cardDataLeaks } from './support/leaks.js';
import { LOG_FILE, RESPONSES_FILE, running, testConfig } from './support/service.js';

describe('card data in logs and answers', () => {
  it('no PAN, CVV or PIN of any card appears in a log line or in an answer other than E6', async () => {
    const b = await newBusiness();
    const { card, customer } = await issuedCard(b);
    const data = await revealed(b, card, customer);
    const { sessionId, code } = await displaySession(b, card, customer);
    expect((await verifyDisplay(b, { session_id: sessionId, otp: otherCode(code) })).status).to.equal(400);
    await changeStatus(b, card.id, 'TEMPORARILY_BLOCKED');
    expect((await startDisplay(b, card.id)).status).to.equal(412);
    expect((await get(`/cards/${card.id}`, { token: b.token })).body).to.not.have.property('pan');
    expect(data.pan).to.match(/^[0-9]{16}$/);
    expect(await cardDataLeaks(running().db, testConfig(), LOG_FILE, RESPONSES_FILE)).to.deep.equal([]);
  });

  it('finds a PAN or a CVV wherever it is (the search itself is tested)', async () => {
    const b = await newBusiness();
    const { card, customer } = await issuedCard(b);
    const data = await revealed(b, card, customer);
    const dir = mkdtempSync(path.join(tmpdir(), 'card-leaks-'));
    const [logs, responses] = [path.join(dir, 'service.log'), path.join(dir, 'responses.jsonl')];
    writeFileSync(logs, `{"msg":"request","note":"card ${data.pan}"}\n`);
    writeFileSync(responses, `${JSON.stringify({ method: 'POST', path: '/cards/sensitive-data/verify-otp', status: 200, text: JSON.stringify(data) })}\n`);
    expect(await cardDataLeaks(running().db, testConfig(), logs, responses)).to.deep.equal([`the pan of card ${card.id} is in the log file (line at offset 0)`]);
    // A file served verbatim (the reference page's scripts) is not searched: it holds every 3-digit string somewhere.
    appendFileSync(responses, `${JSON.stringify({ method: 'GET', path: '/docs/assets/standalone.js', status: 200, text: JSON.stringify({ x: data.cvv }) })}\n`);
    expect(await cardDataLeaks(running().db, testConfig(), logs, responses)).to.have.length(1);
    appendFileSync(responses, `${JSON.stringify({ method: 'GET', path: `/cards/${card.id}`, status: 200, text: JSON.stringify({ cvv: data.cvv }) })}\n`);
    expect(await cardDataLeaks(running().db, testConfig(), logs, responses)).to.include(`the cvv of card ${card.id} is in a response other than E6 (GET /cards/${card.id})`);
  });
});
