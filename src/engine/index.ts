/**
 * The resource engine's one entry point: other folders reach it here, never through its files.
 * A declaration (`defineResource`) becomes routes (`resourceRoutes`); relations, reference fields
 * and record shapes describe what it reads and writes; the rest serves special operations that
 * read or change records the way the generic routes do.
 */
export { AUDIT_SET, defineResource, shapeOf, shapeOfFields } from './resource';
export type {
  AuditedTable,
  ComputedField,
  Parent,
  RecordShape,
  Relation,
  ResourceDeclaration,
  WritableField,
  WriteContext,
} from './types';
export {
  hasMany,
  hasManyFields,
  hasOne,
  manyToMany,
  ownedRecords,
  planOf,
  readOnlyRelation,
  referencedBy,
  withPlan,
} from './relations';
export type { PlannedParent, RelationPlan } from './relations';
export { referenceField, referenceInput } from './reference-field';
export {
  computedFrom,
  finishRecord,
  isoTime,
  jsonObject,
  literal,
  recordJson,
  refJson,
  refProperty,
  timeProperty,
} from './record-json';
export { refSchema, timeSchema, typed } from './wire';
export { recordSchema } from './record-schema';
export { oneRecordRead, selectOne, selectPage } from './queries';
export type { WireRecord } from './queries';
export { listBody, readBack, readOne } from './read';
export {
  filterParam,
  includesParam,
  pageMetadata,
  pageMetaSchema,
  pageParam,
  pageSizeParam,
  paginationSchema,
} from './list-params';
export { recordScope, tenantScope } from './scope';
export { filteredScope, selectionFromFilter } from './selection';
export { bulkResult, bulkResultSchema, bulkTarget } from './bulk';
export {
  createRecords,
  createStatement,
  deleteRecords,
  deleteStatement,
  reserveId,
  updateRecords,
  updateStatement,
} from './changes';
export type { Writer } from './changes';
export { deletedValues, updatedValues } from './columns';
export { resourceRoutes } from './routes';
export { createRecord } from './write';
export { plannedCreateStatements, sendWithReadBack } from './planned-write';
export { childListRoute } from './child-routes';
export { readOnlyTimeField } from './time-field';
export { translateDbError } from './constraints';
export { schemasOf } from './schemas';
