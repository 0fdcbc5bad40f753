import type { ResourceDeclaration } from '../../engine';
import { orderedCheck, requireOrdered, type OrderedPair, type PairEntry } from './ordered-pair';
import { requireParent } from './parent-field';

/**
 * The write rules of a schedule or a holiday written on its own: its business hours named
 * (`requireParent`, in the Worker) and its pair in order (`requireOrdered`), in the interactive
 * write and in a write sent as one batch, where the order is a statement of the batch.
 */
export function childWriteRules(
  singular: string,
  pair: OrderedPair,
): Pick<ResourceDeclaration, 'beforeWrite' | 'planned'> {
  const entries = (record: Record<string, unknown>, id: number | undefined): PairEntry[] => [
    { source: singular, id, values: record },
  ];
  return {
    beforeWrite: async ({ tx, who }, record, id) => {
      requireParent(singular, record, id);
      await requireOrdered(tx, who, pair, entries(record, id));
    },
    planned: {
      before: (_who, record, id) => {
        requireParent(singular, record, id);
        return true;
      },
      first: (_db, who, record, id) => orderedCheck(who, pair, entries(record, id)),
    },
  };
}
