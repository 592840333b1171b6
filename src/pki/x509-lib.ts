/**
 * Lazy access to @peculiar/x509. Loading it costs ~150 ms (tsyringe, the ASN.1
 * schemas), so only the paths that create certificates or parse CSRs load it;
 * loading existing PKI at start-up uses node:crypto alone.
 */
import { webcrypto } from 'node:crypto';

export type X509Module = typeof import('@peculiar/x509');

let loading: Promise<X509Module> | undefined;

/** Returns @peculiar/x509 with node's WebCrypto as its crypto provider. */
export function loadX509(): Promise<X509Module> {
  loading ??= (async () => {
    // tsyringe (inside @peculiar/x509) needs the Reflect metadata API installed first.
    await import('reflect-metadata');
    const x509 = await import('@peculiar/x509');
    x509.cryptoProvider.set(webcrypto as unknown as Crypto);
    return x509;
  })();
  return loading;
}
