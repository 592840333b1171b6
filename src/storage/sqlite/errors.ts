/** Every call on a closed backend rejects with this, and open watches end with it. */
export class BackendClosedError extends Error {
  constructor() {
    super('storage backend is closed');
    this.name = 'BackendClosedError';
  }
}
