/**
 * A command line as typed or pasted into the agent form (`bash /path/to/agent.sh`, `"/opt/my agent/run" --acp`),
 * split the way a POSIX shell splits words: blanks separate words; single quotes keep everything literally;
 * double quotes keep blanks, with \" \\ \$ \` escaped; a backslash outside quotes escapes the next character.
 * Shell features the agent's process would not get (pipes, redirections, variables, substitutions, globs) are
 * refused with a reason: Switchboard starts the program directly, without a shell.
 */
export type CommandLine = { ok: true; words: string[] } | { ok: false; error: string };

const OPERATORS = new Set(['|', '&', ';', '<', '>', '(', ')']);

export function splitCommandLine(text: string): CommandLine {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let i = 0;
  const fail = (what: string): CommandLine => ({ ok: false, error: `${what}: Switchboard starts the program itself, without a shell (use sh -c '…' as the command for that)` });
  while (i < text.length) {
    const c = text[i]!;
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
      i++;
      continue;
    }
    inWord = true;
    if (c === "'") {
      const end = text.indexOf("'", i + 1);
      if (end < 0) return { ok: false, error: 'a single quote is not closed' };
      word += text.slice(i + 1, end);
      i = end + 1;
    } else if (c === '"') {
      i++;
      for (;;) {
        if (i >= text.length) return { ok: false, error: 'a double quote is not closed' };
        const d = text[i]!;
        if (d === '"') break;
        if (d === '\\' && i + 1 < text.length && '"\\$`\n'.includes(text[i + 1]!)) {
          if (text[i + 1] !== '\n') word += text[i + 1];
          i += 2;
          continue;
        }
        if (d === '$' || d === '`') return fail('variables and command substitution');
        word += d;
        i++;
      }
      i++;
    } else if (c === '\\') {
      if (i + 1 >= text.length) return { ok: false, error: 'the line ends with a backslash' };
      if (text[i + 1] !== '\n') word += text[i + 1];
      i += 2;
    } else if (OPERATORS.has(c)) {
      return fail(`"${c}" (pipes, redirections, lists)`);
    } else if (c === '$' || c === '`') {
      return fail('variables and command substitution');
    } else {
      word += c;
      i++;
    }
  }
  if (inWord) words.push(word);
  return { ok: true, words };
}
