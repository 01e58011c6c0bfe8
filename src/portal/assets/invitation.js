/**
 * An invitation's acceptance, before any session: the link an invited user receives
 * (`/portal/#invitation=<token>`) opens it. The user chooses a password
 * (`acceptPortalUserInvitation`), adds the answered TOTP secret to an authenticator app (the
 * secret and its otpauth:// link, shown this once), confirms with a first code
 * (`confirmPortalUserTotp`), and sees the recovery codes, this once; then signs in.
 */
import { html, useState } from './preact-htm.js';
import { CopyButton, Field, Problem, useSubmit } from './ui.js';
import { acceptInvitation, confirmTotp } from './api.js';

/** The token of the invitation link the address carries, or null. */
export function invitationToken() {
  const match = /^#invitation=([A-Za-z0-9._-]+)$/.exec(window.location.hash);
  return match ? match[1] : null;
}

/** The acceptance's steps for `token`; `onDone()` leads to the sign-in form. */
export function Invitation({ token, onDone }) {
  const [password, setPassword] = useState('');
  const [again, setAgain] = useState('');
  const [enrolment, setEnrolment] = useState(null);
  const [code, setCode] = useState('');
  const [activation, setActivation] = useState(null);
  const accept = useSubmit(async () => {
    if (password !== again) throw { title: 'The passwords differ', detail: 'Type the same password twice.' };
    setEnrolment(await acceptInvitation(token, password));
  });
  const confirm = useSubmit(async () => setActivation(await confirmTotp(token, code.trim())));

  let step;
  if (activation) {
    step = html`<section aria-labelledby="recovery-title">
      <h2 id="recovery-title">Your recovery codes</h2>
      <p>Each signs you in once instead of a code, should you lose your authenticator. Keep them somewhere safe: they are shown this once.</p>
      <ul class="codes">${activation.recovery_codes.map((c) => html`<li><code>${c}</code></li>`)}</ul>
      <${CopyButton} text=${activation.recovery_codes.join('\n')} label="Copy the recovery codes" />
      <p><button type="button" onClick=${onDone}>Go to sign-in</button></p>
    </section>`;
  } else if (enrolment) {
    step = html`<form onSubmit=${confirm.onSubmit} aria-labelledby="totp-title">
      <h2 id="totp-title">Add your authenticator</h2>
      <p>Add this secret to an authenticator app (or open the link on the device that has one), then enter the code it shows.</p>
      <p>Secret <span class="id"><code>${enrolment.totp_secret}</code> <${CopyButton} text=${enrolment.totp_secret} label="Copy the TOTP secret" /></span></p>
      <p><a href=${enrolment.totp_uri}>Open in an authenticator app</a></p>
      <${Field} id="first-code" label="Code from the app" value=${code} onInput=${setCode} required autocomplete="one-time-code" />
      <${Problem} error=${confirm.error} />
      <button type="submit" disabled=${confirm.busy}>Confirm</button>
    </form>`;
  } else {
    step = html`<form onSubmit=${accept.onSubmit} aria-labelledby="password-title">
      <h2 id="password-title">Choose a password</h2>
      <${Field} id="new-password" label="Password" type="password" value=${password} onInput=${setPassword} required autocomplete="new-password"
        hint="At least 12 characters." />
      <${Field} id="new-password-again" label="The same password again" type="password" value=${again} onInput=${setAgain} required autocomplete="new-password" />
      <${Problem} error=${accept.error} />
      <button type="submit" disabled=${accept.busy}>Continue</button>
    </form>`;
  }
  return html`<main class="sign-in" id="main">
    <h1>Join the business portal</h1>
    ${step}
  </main>`;
}
