/** What a contact form's token may look like (src/resources/contactforms/form-token.ts makes 32 such characters). */
export const FORM_TOKEN = /^[A-Za-z0-9_-]{1,64}$/;
