import { z } from 'zod';
import type { APP_SETTING_TYPES } from '../../db/schema';
import { recordBody, writableRecord } from '../../http/record-body';

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
      return z
        .string({ error: 'must be a string' })
        .min(1, 'must not be empty; send null to clear it')
        .max(MAX_SETTING_TEXT, tooLong);
    case 'number':
      // JSON has no NaN or Infinity, and zod refuses them anyway: a number here is finite.
      return z.number({ error: 'must be a number' });
    case 'boolean':
      return z.boolean({ error: 'must be true or false' });
    case 'select': {
      const options = Array.isArray(setting.options)
        ? setting.options.filter((o): o is string => typeof o === 'string')
        : [];
      const detail = `must be one of: ${options.join(', ')}`;
      return z.string({ error: detail }).refine((value) => options.includes(value), detail);
    }
  }
}

/** Properties of a setting as it reads, accepted in a body and ignored (beside the audit set, `id` and `type`). */
const READ_ONLY = ['app', 'key', 'name', 'settingType', 'options', 'required', 'defaultValue'];

/**
 * What any setting's value may be. Checked against the setting's own type once the setting is
 * known (`settingValueSchema`), so that a refusal says what that setting takes.
 */
const anyValue = z
  .unknown()
  .meta({ anyOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }, { type: 'null' }] });

/**
 * The body of a setting update, as the document shows it and the route first checks it: `value`,
 * and `isSet` as a client read it (a secret sent back as read, `value` null and `isSet` true,
 * is left alone).
 */
export const settingUpdateBody = recordBody(
  'appsetting',
  writableRecord(
    {
      value: anyValue.meta({
        description:
          "of the setting's type: string, number, boolean, one of a select's options, or a secret string; null: back to the default",
      }),
      isSet: z
        .boolean()
        .optional()
        .meta({ description: 'read-only, as read: with `value` null on a secret, the secret is kept' }),
    },
    READ_ONLY,
  ).meta({ id: 'AppSettingUpdate' }),
);

/** `value` checked against the setting's declared type (null, the reset, is allowed beside it). */
export function settingValueSchema(setting: SettingDeclaration) {
  return z.object({ value: valueSchema(setting).nullable() });
}
