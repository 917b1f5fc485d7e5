import { BadInputError } from '@/lib/core/input';

/** partner_node_id values that name no node of the partner: bad input on `partner_node_id` (400 INVALID_PARAMETERS). */
export class UnknownNodesError extends BadInputError {
  override name = 'UnknownNodesError';
  constructor(
    readonly partnerNodeIds: string[],
    hint?: string,
  ) {
    const listed = partnerNodeIds.slice(0, 5).join(', ') + (partnerNodeIds.length > 5 ? ` and ${partnerNodeIds.length - 5} more` : '');
    super(`unknown partner_node_id: ${listed}${hint ? ` (${hint})` : ''}`, 'partner_node_id');
  }
}
