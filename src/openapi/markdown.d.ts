/** A page of docs/ as text (wrangler.toml `[[rules]] type = "Text"`). */
declare module '*.md' {
  const text: string;
  export default text;
}
