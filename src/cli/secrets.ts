/** What stands for a secret in what a command prints. */
const HIDDEN = "***";

/**
 * `line` without the secrets `location` (a provider or store URL) holds: the password of a URL,
 * as given or percent-decoded, and the key or signature of a connection string. A URL that holds
 * a password, or cannot be read, is hidden whole.
 */
export function withoutSecrets(line: string, location: string): string {
  return secretsOf(location)
    .sort((a, b) => b.length - a.length)
    .reduce((text, secret) => text.split(secret).join(HIDDEN), line);
}

/** The secrets of `location`, longest first after sorting; none for a URL without them. */
function secretsOf(location: string): string[] {
  const secrets = [...location.matchAll(/SharedAccess(?:Key|Signature)=([^;]+)/gi)].map((found) => found[1]!);
  if (!/^[a-z][a-z\d+.-]*:\/\//i.test(location)) return secrets;
  let password: string;
  try {
    password = new URL(location).password;
  } catch {
    return [...secrets, location];
  }
  if (password.length === 0) return secrets;
  let decoded = password;
  try {
    decoded = decodeURIComponent(password);
  } catch {
    // Not percent-encoded as a URL would be: only the text as given can appear.
  }
  return [...secrets, location, password, decoded];
}
