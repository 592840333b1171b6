/**
 * Key pairs as PEM. ECDSA P-256 throughout: generation takes ~0.1 ms (RSA-2048
 * takes ~150 ms), Go's TLS and kube-apiserver accept it, and kubeadm offers the
 * same choice (ClusterConfiguration encryptionAlgorithm: ECDSA-P256), including
 * for the service-account key (ES256 tokens).
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync, webcrypto, type KeyObject } from 'node:crypto';

export interface KeyPairPem {
  /** PKCS#8 "PRIVATE KEY" PEM. */
  keyPem: string;
  /** SubjectPublicKeyInfo "PUBLIC KEY" PEM. */
  publicKeyPem: string;
}

export function generateKeyPair(): KeyPairPem {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  return {
    keyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
    publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }) as string,
  };
}

/** The public half of a private key PEM (PKCS#8, SEC1 or PKCS#1). */
export function publicKeyPemOf(keyPem: string): string {
  return createPublicKey(keyPem).export({ type: 'spki', format: 'pem' }) as string;
}

type ImportParams = webcrypto.EcKeyImportParams | webcrypto.RsaHashedImportParams;
type SignatureAlgorithm = webcrypto.EcdsaParams | webcrypto.Algorithm;

const curves: Record<string, { curve: string; hash: string }> = {
  prime256v1: { curve: 'P-256', hash: 'SHA-256' },
  secp384r1: { curve: 'P-384', hash: 'SHA-384' },
  secp521r1: { curve: 'P-521', hash: 'SHA-512' },
};

/** How WebCrypto imports this key and which signature algorithm it signs with. */
function algorithmsFor(key: KeyObject): { importParams: ImportParams; signingAlgorithm: SignatureAlgorithm } {
  if (key.asymmetricKeyType === 'ec') {
    const c = curves[key.asymmetricKeyDetails?.namedCurve ?? ''];
    if (!c) throw new Error(`pki: unsupported EC curve ${key.asymmetricKeyDetails?.namedCurve}`);
    return {
      importParams: { name: 'ECDSA', namedCurve: c.curve },
      signingAlgorithm: { name: 'ECDSA', hash: c.hash } as webcrypto.EcdsaParams,
    };
  }
  if (key.asymmetricKeyType === 'rsa') {
    // A CA made by kubeadm with its defaults is RSA-2048.
    return {
      importParams: { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' },
      signingAlgorithm: { name: 'RSASSA-PKCS1-v1_5' },
    };
  }
  throw new Error(`pki: unsupported key type ${key.asymmetricKeyType}`);
}

export interface SigningKey {
  privateKey: webcrypto.CryptoKey;
  publicKey: webcrypto.CryptoKey;
  signingAlgorithm: SignatureAlgorithm;
}

/** Imports a private key PEM (and its public half) into WebCrypto for signing. */
export async function importSigningKey(keyPem: string): Promise<SigningKey> {
  const key = createPrivateKey(keyPem);
  const { importParams, signingAlgorithm } = algorithmsFor(key);
  const [privateKey, publicKey] = await Promise.all([
    webcrypto.subtle.importKey('pkcs8', key.export({ type: 'pkcs8', format: 'der' }), importParams, false, ['sign']),
    importPublicKey(createPublicKey(key)),
  ]);
  return { privateKey, publicKey, signingAlgorithm };
}

/** Imports a public key (PEM or KeyObject) into WebCrypto, e.g. as a certificate's subject key. */
export function importPublicKey(publicKey: string | KeyObject): Promise<webcrypto.CryptoKey> {
  const key = typeof publicKey === 'string' ? createPublicKey(publicKey) : publicKey;
  const spki = key.export({ type: 'spki', format: 'der' });
  return webcrypto.subtle.importKey('spki', spki, algorithmsFor(key).importParams, true, ['verify']);
}
