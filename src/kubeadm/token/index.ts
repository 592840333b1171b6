/** kubeadm's token verbs: create, list, delete, generate, and the join command. */
export * from './commands.js';
export * from './print.js';
export * from './join-command.js';
