/** @scalar/api-reference's browser bundle as text (wrangler.toml `[[rules]] type = "Text"`). */
declare module '@scalar/api-reference/dist/browser/standalone.js' {
  const source: string;
  export default source;
}
