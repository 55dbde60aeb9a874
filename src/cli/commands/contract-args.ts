/** `contract`'s arguments as parsed: apart from its flags, so contract-action.ts imports no cycle. */
export interface ContractArgs {
  action?: string;
  file?: string;
  openapi?: string;
  'json-schema'?: string;
}
