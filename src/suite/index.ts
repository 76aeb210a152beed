/**
 * The one door of the suites: every suites/ file imports the harness from here and from nowhere else in
 * src/ (biome.json enforces it with style/noRestrictedImports), and never from reference/. This file only
 * re-exports: the helpers written for suites live beside it by topic (endpoints.ts: the endpoint table
 * and probes; cases.ts: case tables and generated values; status.ts: judging an answer's status;
 * schema.ts: findings of a documented schema), the rest is what the suites use of the harness (the
 * check wrapper, media jobs and rules, accounts rules, the model-based tests).
 */
export { apiErrorShape } from '../checks/exchange.ts';
export {
  capabilityWords,
  entryId,
  entryIds,
  findCatalog,
  findEntryList,
  findField,
  isPlainObject,
  listingMentions,
  walkFields,
} from '../checks/json.ts';
export { namedModelProblem } from '../checks/model-named.ts';
export {
  type CallCharge,
  callCharge,
  chargeArithmetic,
  chargeJudgement,
  isTokenCountName,
  judgePoints,
  modelPrices,
  type Prices,
  pointsFieldPointers,
  pointsFields,
  pointsFindings,
} from '../checks/points.ts';
export {
  incrementOf,
  parseSse,
  replyBody,
  streamEventProblems,
  streamedModel,
  TERMINAL_EVENTS,
  terminalEventProblems,
} from '../checks/sse.ts';
export { TransportError } from '../errors.ts';
export { type Exchange, type HttpResponse, retryAfterMs } from '../http/client.ts';
export { PROBE_CREDENTIALS } from '../http/redact.ts';
export { segment } from '../http/segment.ts';
export {
  ACTIVE_STATUSES,
  acceptableSamples,
  assetOfSucceeded,
  JOB_STATUSES,
  type JobTrace,
  jobStatusNow,
  mediaCatalog,
  pollJob,
  readsNoJob,
  sample,
  sniff,
  TERMINAL_STATUSES,
  trackJob,
  UPLOAD_LIMITS,
  unfinished,
  upload,
  videoSampleOf,
} from '../media-jobs.ts';
export { type BodySide, valueAt } from '../openapi/document.ts';
export { documented } from '../openapi/documented.ts';
export { DriftComparer } from '../openapi/drift.ts';
export { checkOpenApi31Once, LiveDescription } from '../openapi/live.ts';
export * as accounts from '../rules/accounts.ts';
export * as rules from '../rules/chat.ts';
export {
  type Axis,
  type CoveredValue,
  type CoveringReferences,
  cheapestMegapixels,
  cheapestParameters,
  coveringDesign,
  packAxes,
} from '../rules/covering.ts';
export {
  catalogModel,
  catalogParameterCases,
  type MediaModel,
  mediaTable,
  neverAcceptedValues,
  type ParameterRule,
  type PromptBreak,
  parameterCases,
  promptArbitrary,
  promptBoundaryValid,
  promptExamples,
  promptValid,
  siblingValues,
  sizeCases,
  utf8CapBinds,
} from '../rules/media-models.ts';
export {
  type CheckContext,
  isSuccess,
  type Req,
  routeControl,
  type Verdict,
} from '../runtime/check.ts';
export { type CheckSpec, check, group } from '../runtime/define.ts';
export { readWholeList, type WholeList } from '../runtime/lists.ts';
export { checkProperty } from '../runtime/property.ts';
export { depth, PROFILE_PROPERTY_RUNS } from '../runtime/run-config.ts';
export { seededSample } from '../runtime/sample.ts';
export { discoverHints, worker } from '../runtime/worker.ts';
export { ACTIVE, type Env, type MediaChoice, type Mode, newModel } from '../stateful/account-state.ts';
export { commandsFor } from '../stateful/commands/index.ts';
export { readBalance } from '../stateful/commands/read-balance.ts';
export { UploadInput } from '../stateful/commands/upload-input.ts';
export {
  addedRecords,
  availableProblem,
  type BalanceFigures,
  balanceMoveProblem,
  balanceOf,
  chargeChanges,
  chargedOf,
  chargesCompared,
  isProblem,
  type Judged,
  ledgerAddsUpProblem,
  ledgerBalanceProblem,
  ledgerChainProblem,
  ledgerOf,
  listedRecords,
  type Problem,
  recordKey,
  recordTokenJudgements,
  reportedSpend,
  tokenJudgements,
  usageChargeProblem,
  usageChargesOf,
} from '../stateful/invariants.ts';
export { newKey, type Real } from '../stateful/real.ts';
export { runModel } from '../stateful/runner.ts';
export type { ForbiddenHint, Hint, Profile, Role } from '../vocabulary.ts';
export { answeredCause, ENTERPRISE_ROLES } from '../vocabulary.ts';
export {
  applyCase,
  type Case,
  cases,
  caseTableChecks,
  expand,
  fieldPropertyChecks,
  noteAccepted,
  refusalControl,
} from './cases.ts';
export {
  businessEndpoints,
  businessForms,
  concretePath,
  type Endpoint,
  endpoints,
  idempotencyHeader,
  label,
  probeRequest,
} from './endpoints.ts';
export { documentedViolations } from './schema.ts';
export {
  controlAccepted,
  type ExpectedStatus,
  errorCode,
  expectErrorCode,
  expectStatus,
  isClientError,
  judgeNamedModel,
} from './status.ts';
