/** /version: a semver gitVersion, as `kubectl version` insists. */
import { kubernetesVersion } from '../util/kube-version.js';

export { kubernetesVersion };
export const k8tsVersion = '0.1.0';

export function versionInfo() {
  return {
    major: '1', minor: '32', gitVersion: `${kubernetesVersion}+k8ts.${k8tsVersion}`, gitCommit: 'k8ts', gitTreeState: 'clean',
    buildDate: '2026-11-29T00:00:00Z', goVersion: `node${process.versions.node}`, compiler: 'tsc', platform: `${process.platform}/${process.arch === 'x64' ? 'amd64' : process.arch}`,
  };
}
