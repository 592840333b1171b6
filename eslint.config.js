// The import walls of shared/design.md, enforced so a layer cannot be crossed by accident.
import tseslint from 'typescript-eslint';

const wall = (files, forbidden, why) => ({
  files,
  rules: {
    'no-restricted-imports': ['error', {
      // kubernetes-types/storage/v1 (StorageClass) is the API group, not our storage layer.
      patterns: forbidden.map((dir) => ({ group: [`**/${dir}/**`, `**/${dir}`, '!kubernetes-types/**'], message: why })),
    }],
  },
});

const agents = ['apiserver', 'registry', 'storage', 'cli'];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'generated/**'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  wall(['src/util/**/*.ts'], ['api', 'pki', 'storage', 'registry', 'apiserver', 'client', 'controllers', 'scheduler', 'kubelet', 'kubeadm', 'cli', 'dashboard'], 'util is a leaf'),
  wall(['src/api/**/*.ts'], ['storage', 'registry', 'apiserver', 'client', 'controllers', 'scheduler', 'kubelet', 'kubeadm', 'cli', 'dashboard'], 'api imports nothing of ours'),
  wall(['src/pki/**/*.ts'], ['storage', 'registry', 'apiserver', 'client', 'controllers', 'scheduler', 'kubelet', 'kubeadm', 'cli', 'dashboard'], 'pki is a leaf'),
  wall(['src/storage/**/*.ts'], ['registry', 'apiserver', 'client', 'controllers', 'scheduler', 'kubelet', 'kubeadm', 'cli', 'dashboard'], 'storage imports api only'),
  wall(['src/registry/**/*.ts'], ['apiserver', 'client', 'controllers', 'scheduler', 'kubelet', 'kubeadm', 'cli', 'dashboard'], 'registry imports api and storage only'),
  wall(['src/apiserver/**/*.ts'], ['client', 'controllers', 'scheduler', 'kubelet', 'kubeadm', 'cli', 'dashboard'], 'apiserver imports registry, storage, api'),
  wall(['src/client/**/*.ts'], [...agents, 'controllers', 'scheduler', 'kubelet', 'kubeadm', 'dashboard'], 'client talks HTTP only'),
  wall(['src/controllers/**/*.ts'], [...agents, 'scheduler', 'kubelet', 'kubeadm', 'dashboard'], 'controllers use api and client only'),
  wall(['src/scheduler/**/*.ts'], [...agents, 'controllers', 'kubelet', 'kubeadm', 'dashboard'], 'scheduler uses api and client only'),
  wall(['src/kubelet/**/*.ts'], [...agents, 'controllers', 'scheduler', 'kubeadm', 'dashboard'], 'kubelet uses api and client only'),
  wall(['src/proxy/**/*.ts'], [...agents, 'controllers', 'scheduler', 'kubelet', 'kubeadm', 'pki', 'dashboard'], 'kube-proxy uses api, client and util only: it runs against any API server'),
  wall(['src/netpol/**/*.ts'], [...agents, 'controllers', 'scheduler', 'kubelet', 'kubeadm', 'pki', 'dashboard', 'proxy', 'dns'], 'the NetworkPolicy agent uses api, client and util only: it runs against any API server'),
  wall(['src/dns/**/*.ts'], [...agents, 'controllers', 'scheduler', 'kubelet', 'kubeadm', 'pki', 'dashboard'], 'dns uses api, client and util only: it must run against any API server'),
  wall(['src/dashboard/**/*.ts'], [...agents, 'controllers', 'kubelet', 'kubeadm', 'pki', 'dns', 'proxy'], 'dashboard uses api, client, scheduler and util only'),
  wall(['src/kubeadm/**/*.ts'], [...agents, 'controllers', 'scheduler', 'kubelet', 'dashboard'], 'kubeadm uses api, pki and client only'),
);
