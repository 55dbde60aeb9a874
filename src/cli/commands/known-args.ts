/** `known`'s arguments as parsed: apart from its flags, so known-action.ts imports no cycle. */
export interface KnownFileArgs {
  run?: string;
  why: string;
  who: string;
  expires?: string;
  out?: string;
}
