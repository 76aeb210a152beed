/**
 * The manifest's signature. Why: manifest.json lists every file's sha256, but anyone who edits a file
 * can recompute its sha256 in the manifest too, so a manifest alone proves only that the files agree
 * with it. Signed at run time with an Ed25519 key the editor does not hold (a CI secret), and checked
 * with its public key, the bundle is proved unchanged since the run. node:crypto does Ed25519 itself.
 */
import { createHash, createPrivateKey, createPublicKey, type KeyObject, sign, verify } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from '../errors.ts';
import { REPORT_FILES } from './layout.ts';

export const SIGNATURE = REPORT_FILES.signature.name;

interface SignatureFile {
  format: 'gateway-conformance-signature/1';
  algorithm: 'ed25519';
  /** sha256 of the public key (SPKI, DER): which key signed, without holding it. */
  keyFingerprint: string;
  /** Ed25519 over the exact bytes of manifest.json, base64. */
  signature: string;
}

function fingerprint(key: KeyObject): string {
  return createHash('sha256')
    .update((key.type === 'public' ? key : createPublicKey(key)).export({ type: 'spki', format: 'der' }))
    .digest('hex');
}

function readKey(file: string, flag: string, parse: (pem: Buffer) => KeyObject, kind: string): KeyObject {
  let key: KeyObject;
  try {
    key = parse(readFileSync(file));
  } catch (err) {
    throw new UsageError(`${flag}: cannot read an ${kind} key from ${file} (${(err as Error).message})`);
  }
  if (key.asymmetricKeyType !== 'ed25519')
    throw new UsageError(
      `${flag}: ${file} holds a ${key.asymmetricKeyType} key, not Ed25519 (openssl genpkey -algorithm ed25519)`,
    );
  return key;
}

/** The Ed25519 private key of `--sign-key FILE` (PEM or DER), or a usage error saying what is wrong. */
export function loadSigningKey(file: string): KeyObject {
  return readKey(file, '--sign-key', (b) => createPrivateKey(b), 'Ed25519 private');
}

/** The Ed25519 public key of `verify --public-key FILE` (a private key file gives its public half). */
export function loadPublicKey(file: string): KeyObject {
  return readKey(file, '--public-key', (b) => createPublicKey(b), 'Ed25519 public');
}

/** Sign the manifest of a finished report directory (written last: nothing may change after it). */
export function signManifest(dir: string, key: KeyObject, manifestName: string): void {
  const manifest = readFileSync(join(dir, manifestName));
  const out: SignatureFile = {
    format: 'gateway-conformance-signature/1',
    algorithm: 'ed25519',
    keyFingerprint: fingerprint(key),
    signature: sign(null, manifest, key).toString('base64'),
  };
  writeFileSync(join(dir, SIGNATURE), `${JSON.stringify(out, null, 2)}\n`);
}

/** What a bundle's signature proves: nothing (absent or unchecked), or checked against a public key. */
export type SignatureCheck =
  | { state: 'unsigned' }
  | { state: 'unchecked'; keyFingerprint: string }
  | { state: 'valid'; keyFingerprint: string }
  | { state: 'invalid'; reason: string };

export function checkSignature(dir: string, manifestName: string, publicKey?: KeyObject): SignatureCheck {
  const file = join(dir, SIGNATURE);
  // A missing signature is no signature: with a public key to check against, an unsigned bundle (a
  // forger deletes manifest.sig after re-hashing an edited summary) proves nothing of who wrote it.
  if (!existsSync(file))
    return publicKey
      ? {
          state: 'invalid',
          reason: `no ${SIGNATURE}: the bundle is not signed, so nothing proves the given public key's holder wrote it`,
        }
      : { state: 'unsigned' };
  let sig: SignatureFile;
  try {
    sig = JSON.parse(readFileSync(file, 'utf8')) as SignatureFile;
  } catch {
    return { state: 'invalid', reason: `${SIGNATURE} is not valid JSON` };
  }
  if (sig.format !== 'gateway-conformance-signature/1' || sig.algorithm !== 'ed25519')
    return { state: 'invalid', reason: `${SIGNATURE} is not an Ed25519 signature of this suite` };
  if (!publicKey) return { state: 'unchecked', keyFingerprint: String(sig.keyFingerprint) };
  const mine = fingerprint(publicKey);
  if (mine !== sig.keyFingerprint)
    return {
      state: 'invalid',
      reason: `signed by key ${String(sig.keyFingerprint).slice(0, 16)}…, not by the given public key ${mine.slice(0, 16)}…`,
    };
  const ok = verify(
    null,
    readFileSync(join(dir, manifestName)),
    publicKey,
    Buffer.from(String(sig.signature), 'base64'),
  );
  return ok
    ? { state: 'valid', keyFingerprint: mine }
    : { state: 'invalid', reason: `${manifestName} does not match its signature (changed after the run)` };
}
