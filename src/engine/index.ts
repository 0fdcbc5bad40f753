/**
 * The resource engine's one entry point: other folders reach it here, never through its files.
 * A declaration (`defineResource`) becomes routes (`resourceRoutes`); relations, reference fields
 * and record shapes describe what it reads and writes; the rest serves special operations that
 * read or change records the way the generic routes do.
 */
export { AUDIT_SET, defineResource, shapeOf, writableFields } from './resource';
export type { AuditedTable, ComputedField, Parent, RecordShape, Relation, ResourceDeclaration, WritableField, WriteContext } from './types';
export { hasMany, hasOne, manyToMany, ownedRecords, referencedBy } from './relations';
export { referenceField, referenceInput } from './reference-field';
export { computedFrom, finishRecord, isoTime, jsonObject, literal, recordJson, refJson, refProperty, timeProperty } from './record-json';
export { refSchema, timeSchema, typed } from './wire';
export type { TypedSql, WireValue } from './wire';
export { recordSchema } from './record-schema';
export { selectOne, selectPage } from './queries';
export type { RecordsResult, WireRecord } from './queries';
export { listBody, oneRecordBody, readOne, sparse } from './read';
export type { ListQuery } from './read';
export { compiled, queryableFields } from './compiled';
export { fieldsParam, filterParam, includesParam, orderByParam, orderModeParam, pageMetadata, pageParam, pageSizeParam } from './list-params';
export { recordScope, tenantScope } from './scope';
export { selectionFromFilter } from './selection';
export { bulkResult, bulkResultSchema, bulkTarget } from './bulk';
export type { BulkResult } from './bulk';
export { changeRecords, createRecords, deleteRecords, updateRecords } from './changes';
export { createdValues, deletedValues, updatedValues } from './columns';
export { resourceRoutes } from './routes';
export { schemasOf } from './schemas';
export { translateDbError } from './constraints';
