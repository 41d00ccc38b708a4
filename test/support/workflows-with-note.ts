/** The scenario workflows with the toy `note` kind registered: a workflow bundle sees only what its entry imports. */
import { registerEventKind } from '../../core/event-kinds/registry';
import { note } from './note-event-kind';

registerEventKind(note);

export * from '../../workflows';
