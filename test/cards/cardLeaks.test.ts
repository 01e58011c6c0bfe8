/**
 * Card data never leaks: no PAN, CVV or PIN of any card the run created is in
 * a log line or in an answer other than a successful E6. Every response the tests receive
 * is recorded (test/support/client.ts) and every log line is in the run's log file; this
 * file searches them after a card's whole life, and the root `afterAll` hook
 * (test/support/service.ts) searches them again over the whole suite.
 */
import { appendFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { changeStatus, completedStep, displaySession, issuedCard, revealed, startDisplay, startStep, verifyDisplay } from '../support/cards.js';
import { get, post } from '../support/client.js';
import { credit, newBusiness, topup } from '../support/fixtures.js';
import { cardDataLeaks } from '../support/leaks.js';
import { otherCode } from '../support/sandbox.js';
import { LOG_FILE, RESPONSES_FILE, running, testConfig } from '../support/service.js';

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

  it('nor after the card steps, the simulator and tokenization: PIN set and used, card replaced keeping its PAN, refused requests', async () => {
    const b = await newBusiness();
    const { card, customer } = await issuedCard(b);
    await completedStep(b, card, 'pin', { pin: '6093' }, customer.mobile_number);
    expect((await startStep(b, card.id, 'pin', { pin: '60931' })).status).to.equal(400);
    await topup(b.token, '10.00');
    await credit(b.token, customer.wallet_id, '10.00');
    const sim = (pin: string) => post('/testhelpers/cards/authorizations', { card_id: card.id, amount: '1.00', pin }, { token: b.token });
    expect((await sim('6093')).body.status).to.equal('APPROVED');
    expect((await sim('6094')).body.decline_reason).to.equal('INCORRECT_PIN');
    expect((await sim('60a3')).status).to.equal(400);
    expect((await post('/testhelpers/cards/balance-inquiries', { card_id: card.id, pin: '6093' }, { token: b.token })).body.status).to.equal('APPROVED');
    expect((await post('/testhelpers/tokenization/activation-code-requests', { card_id: card.id, wallet: 'APPLE_PAY', device: 'iPhone' }, { token: b.token })).status).to.equal(201);
    const fresh = await completedStep(b, card, 'replacement', { reason: 'DAMAGED' }, customer.mobile_number);
    expect((await revealed(b, fresh, customer)).pin).to.equal('6093');
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

  it('does not take the tests\' own input echoed back for card data, unless it was sent as card data', async () => {
    const b = await newBusiness();
    const { card, customer } = await issuedCard(b);
    const data = await revealed(b, card, customer);
    const dir = mkdtempSync(path.join(tmpdir(), 'card-leaks-'));
    const [logs, responses] = [path.join(dir, 'service.log'), path.join(dir, 'responses.jsonl')];
    writeFileSync(logs, '');
    // A label the tests named with the CVV's digits, listed back by another request.
    const label = JSON.stringify({ name: data.cvv });
    writeFileSync(responses, `${JSON.stringify({ method: 'POST', path: '/cl/v1/labels', status: 201, text: label, sent: label })}\n`);
    appendFileSync(responses, `${JSON.stringify({ method: 'GET', path: '/cl/v1/labels', status: 200, text: JSON.stringify({ data: [{ name: data.cvv }] }) })}\n`);
    expect(await cardDataLeaks(running().db, testConfig(), logs, responses)).to.deep.equal([]);
    // The same digits under another member are not that echo; sent as a CVV, not an echo at all.
    appendFileSync(responses, `${JSON.stringify({ method: 'GET', path: '/cl/v1/labels', status: 200, text: JSON.stringify({ description: data.cvv }) })}\n`);
    expect(await cardDataLeaks(running().db, testConfig(), logs, responses)).to.have.length(1);
    writeFileSync(responses, `${JSON.stringify({ method: 'POST', path: '/x', status: 400, text: JSON.stringify({ cvv: data.cvv }), sent: JSON.stringify({ cvv: data.cvv }) })}\n`);
    expect(await cardDataLeaks(running().db, testConfig(), logs, responses)).to.deep.equal([`the cvv of card ${card.id} is in a response other than E6 (POST /x)`]);
  });
});
