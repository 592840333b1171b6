/**
 * kubernetes-types marks server-set fields (`status`) readonly; controllers that
 * write a status through the /status subresource build the object to send with this.
 */
export type Writable<T> = { -readonly [K in keyof T]: T[K] };
