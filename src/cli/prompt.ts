// The interactive review question, asked with @inquirer/prompts (loaded only when a question is asked).
import type { ReviewAnswer, ReviewPrompt } from './review.js';

/** Asks on the given terminal streams; Ctrl+C / closing the terminal counts as "quit". */
export function createTerminalPrompt(output: NodeJS.WritableStream, input: NodeJS.ReadableStream): ReviewPrompt {
  return async ({ path, index, total }) => {
    const { expand } = await import('@inquirer/prompts');
    try {
      return await expand<ReviewAnswer>(
        {
          message: `Apply this change to ${path}? (${index}/${total})`,
          default: 'y',
          choices: [
            { key: 'y', name: 'apply this file', value: 'apply' },
            { key: 'n', name: 'skip this file', value: 'skip' },
            { key: 'a', name: 'apply this and all remaining files', value: 'all' },
            { key: 'q', name: 'quit (write nothing more)', value: 'quit' },
          ],
        },
        { output, input },
      );
    } catch (err) {
      if (err instanceof Error && err.name === 'ExitPromptError') return 'quit';
      throw err;
    }
  };
}
