/**
 * Saving text the portal fetched (a wallet's CSV statement, a batch report) as a file:
 * a Blob behind an object URL, opened by a temporary `<a download>`. A download by an
 * anchor is no fetch, so the page's Content-Security-Policy needs no `blob:` source for it.
 */

/**
 * Offers `text` to the user as the file `filename`.
 * @param {string} filename the name the browser saves it under, e.g. `statement-900000000019.csv`
 * @param {string} text the file's content
 * @param {string} [type] its media type; `text/csv` by default
 */
export function downloadText(filename, text, type = 'text/csv') {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  a.hidden = true;
  document.body.append(a);
  a.click();
  a.remove();
  // The browser has taken the object by the time the click returns; revoking at once can
  // cancel the download in some browsers, so it waits a moment.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
