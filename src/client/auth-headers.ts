import type { AuthForm, AuthMode } from './client-options.js';

/** A key that is never a real one: for `auth: 'wrong'` probes, which must get a 401. */
const WRONG_KEY = 'jobstorm-wrong-key';

type HeaderSet = Readonly<Record<string, string>>;

/**
 * Header objects built once per client and shared by every request, so the hot path allocates
 * none. The key lives only here; records and errors never see these objects.
 */
export class AuthHeaders {
  private readonly plain: Record<AuthMode, HeaderSet>;
  private readonly json: Record<AuthMode, HeaderSet>;

  constructor(apiKey: string, form: AuthForm) {
    const wrong = apiKey === WRONG_KEY ? `${WRONG_KEY}-2` : WRONG_KEY;
    const value = (key: string): string => (form === 'bare' ? key : `Bearer ${key}`);
    const auth: Record<AuthMode, Record<string, string>> = {
      bearer: { authorization: `Bearer ${apiKey}` },
      bare: { authorization: apiKey },
      wrong: { authorization: value(wrong) },
      missing: {},
      none: {},
    };
    const base = { 'user-agent': 'jobstorm' };
    const build = (extra: Record<string, string>): Record<AuthMode, HeaderSet> => ({
      bearer: Object.freeze({ ...base, ...extra, ...auth.bearer }),
      bare: Object.freeze({ ...base, ...extra, ...auth.bare }),
      wrong: Object.freeze({ ...base, ...extra, ...auth.wrong }),
      missing: Object.freeze({ ...base, ...extra }),
      none: Object.freeze({ ...base, ...extra }),
    });
    this.plain = build({});
    this.json = build({ 'content-type': 'application/json' });
  }

  /** Headers for a request without a body, or with a JSON one. */
  get(mode: AuthMode, withJsonBody: boolean): HeaderSet {
    return withJsonBody ? this.json[mode] : this.plain[mode];
  }
}
