// GitHub Actions workflow-command escaping (`::error file=...,line=...::message`): %, CR and LF in
// the message; also ":" and "," in properties such as the file name.
export function escapeData(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

export function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
}
