/**
 * Which of the run's search attributes (workflows/definitions.ts SEARCH_ATTRIBUTES) the
 * namespace has, with the type the workflow sets: a workflow that sets one the namespace lacks
 * fails its task over and over, so it asks first. Through the worker's own client.
 */
import { Context } from '@temporalio/activity';
import type { SearchAttributeType } from '@temporalio/common';
import { encodeSearchAttributeIndexedValueType } from '@temporalio/common/lib/search-attributes';

export interface SearchAttributeWanted {
  name: string;
  type: SearchAttributeType;
}

export async function registeredSearchAttributes(wanted: SearchAttributeWanted[]): Promise<string[]> {
  const { client, info } = Context.current();
  const { customAttributes } = await client.connection.operatorService.listSearchAttributes({ namespace: info.workflowNamespace });
  return wanted.filter((w) => customAttributes?.[w.name] === encodeSearchAttributeIndexedValueType(w.type)).map((w) => w.name);
}

export interface VisibilityActivities {
  registeredSearchAttributes(wanted: SearchAttributeWanted[]): Promise<string[]>;
}
