// A StrykerJS ignorer (stryker.config.mjs `ignorers`): the reference's fault and variant switches are
// not mutated. `ctx.fault === 'name'` (or `!==`, any `<x>.fault`) and `isVariant(ctx, 'name')` only
// choose between the plain reference and one seeded fault or variant: turned off they change nothing
// on the plain reference (equivalent by construction), turned on they are that fault, which the
// mutation matrix already proves killed by its ids (or that variant, proved passed). Running them cost
// a quarter of a module's mutants; StrykerJS reports them as Ignored with this reason, and
// tools/mutation-triage.ts counts them with the switches.
import { declareValuePlugin, PluginKind } from '@stryker-mutator/api/plugin';

const readsFault = (n) =>
  n?.type === 'MemberExpression' &&
  !n.computed &&
  n.property?.type === 'Identifier' &&
  n.property.name === 'fault';

export const strykerPlugins = [
  declareValuePlugin(PluginKind.Ignore, 'fault-switch', {
    shouldIgnore(path) {
      const n = path.node;
      if (
        n.type === 'BinaryExpression' &&
        (n.operator === '===' || n.operator === '!==') &&
        (readsFault(n.left) || readsFault(n.right))
      )
        return 'a fault switch: off it is the plain reference, on it is a fault the mutation matrix kills';
      if (n.type === 'CallExpression' && n.callee?.type === 'Identifier' && n.callee.name === 'isVariant')
        return 'a variant switch: off it is the plain reference, on it is a variant the mutation matrix passes';
      return undefined;
    },
  }),
];
