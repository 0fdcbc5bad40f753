import { z } from 'zod';
import type { APP_SETTING_TYPES } from '../../db/schema';
import { ignoringReadOnly, RECORD_ENVELOPE } from '../engine/body';

/** Longest string or secret a setting takes. */
export const MAX_SETTING_TEXT = 10_000;

export interface SettingDeclaration {
  settingType: (typeof APP_SETTING_TYPES)[number];
  options: unknown;
}

/** What the setting's declared type accepts (null, the reset, is allowed beside it). */
function valueSchema(setting: SettingDeclaration): z.ZodType {
  const tooLong = `must be at most ${MAX_SETTING_TEXT} characters`;
  switch (setting.settingType) {
    case 'string':
      return z.string({ error: 'must be a string' }).max(MAX_SETTING_TEXT, tooLong);
    case 'secret':
      return z.string({ error: 'must be a string' }).min(1, 'must not be empty; send null to clear it').max(MAX_SETTING_TEXT, tooLong);
    case 'number':
      // JSON has no NaN or Infinity, and zod refuses them anyway: a number here is finite.
      return z.number({ error: 'must be a number' });
    case 'boolean':
      return z.boolean({ error: 'must be true or false' });
    case 'select': {
      const options = Array.isArray(setting.options) ? setting.options.filter((o): o is string => typeof o === 'string') : [];
      const detail = `must be one of: ${options.join(', ')}`;
      return z.string({ error: detail }).refine((value) => options.includes(value), detail);
    }
  }
}

/** Properties of a setting as it reads, accepted in a body and ignored (beside the audit set). */
const READ_ONLY = [...RECORD_ENVELOPE, 'app', 'key', 'name', 'settingType', 'options', 'required', 'defaultValue', 'isSet'];

/** The body of a setting update: `value` of the setting's type, or null. */
export function settingBodySchema(setting: SettingDeclaration) {
  return ignoringReadOnly(z.strictObject({ value: valueSchema(setting).nullable() }), READ_ONLY) as z.ZodType<{ value: unknown }>;
}
