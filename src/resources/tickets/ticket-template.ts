/** What a template may name of its ticket: `{{ticket.id}}`, `{{ticket.subject}}`, `{{customer.firstName}}`, `{{customer.lastName}}`, `{{customer.email}}`. */
export interface TemplateValues {
  id: number;
  subject: string;
  customerFirstName: string;
  customerLastName: string;
  customerEmail: string;
}

const PLACEHOLDER =
  /\{\{\s*(ticket\.id|ticket\.subject|customer\.firstName|customer\.lastName|customer\.email)\s*\}\}/g;

/**
 * A template (a trigger's templated reply, an inbox's auto-reply) with its placeholders filled
 * from the ticket, each value passed through `escape` first: what the customer wrote (a subject,
 * a name) is taken literally by whatever reads the result (Markdown, HTML), never as markup.
 */
export function fillTemplate(template: string, values: TemplateValues, escape: (text: string) => string): string {
  return template.replace(PLACEHOLDER, (_, name: string) =>
    escape(
      {
        'ticket.id': String(values.id),
        'ticket.subject': values.subject,
        'customer.firstName': values.customerFirstName,
        'customer.lastName': values.customerLastName,
        'customer.email': values.customerEmail,
      }[name] ?? '',
    ),
  );
}
