import { titleInWords } from '../lib/words';

/** A group's name in the document and the reference's sidebar: `BusinessHoursHolidays` → `Business hours holidays`. */
export const groupName = (key: string): string => titleInWords(key);
