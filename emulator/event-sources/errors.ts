/** Base class for the errors that the event source mapping emulation raises. */
export class MappingError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'MappingError';
  }
}

/** A mapping setting is out of range: the mapping refuses it, as Lambda's API would. */
export class MappingConfigError extends MappingError {
  /** The setting, e.g. `batchSize`. */
  readonly setting: string;
  readonly given: unknown;

  constructor(setting: string, given: unknown, message: string) {
    super(message);
    this.name = 'MappingConfigError';
    this.setting = setting;
    this.given = given;
  }
}
