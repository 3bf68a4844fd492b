import { parse, type Expression, type Node, type Program } from 'acorn';

/**
 * The data a JavaScript data file (Eleventy's `posts.11tydata.js`) exports, read without running
 * it: parsed by acorn, then taken only when what it exports is written out as a literal, in one of
 * the shapes sites write: `module.exports = { … }`, `export default { … }`, a function that
 * returns one (`module.exports = () => ({ … })`, `function () { return { … }; }`), or the name
 * of a `const` holding one. Inside the literal, strings (a template without `${}` too), numbers,
 * booleans, `null`, arrays and objects are read; a key whose value is anything else (a function,
 * a variable, a spread, `eleventyComputed`'s callbacks) is passed over and named in `skipped`.
 */
export type DataModule = { data: Record<string, unknown>; skipped: string[] } | { unreadable: string };

/** What a value that is not a literal is read as. */
const NOT_LITERAL = Symbol('not a literal');

export function readDataModule(source: string): DataModule {
  let program: Program;
  try {
    program = parseEither(source);
  } catch (error) {
    // Nesting deeper than the stack: no data file a site writes.
    if (error instanceof RangeError) return { unreadable: 'it nests its values too deeply to read' };
    return { unreadable: `it is not JavaScript that can be read (${(error as Error).message})` };
  }
  let exported = exportedExpression(program);
  if (exported === undefined)
    return { unreadable: 'it exports nothing as `module.exports =` or `export default`' };
  if (exported.type === 'Identifier') {
    // `export default data`, with `const data = { … }` above.
    const declared = declaration(program, exported.name);
    if (declared === undefined)
      return { unreadable: `it exports \`${exported.name}\`, which is not declared as a literal` };
    exported = declared;
  }
  const skipped: string[] = [];
  const value = valueOf(returned(exported) ?? exported, '', skipped);
  if (value === NOT_LITERAL || value === null || typeof value !== 'object' || Array.isArray(value))
    return { unreadable: 'what it exports is not an object written out as a literal' };
  return { data: value as Record<string, unknown>, skipped };
}

/** As an ES module (`export default`), else as a CommonJS script. */
function parseEither(source: string): Program {
  const options = { ecmaVersion: 'latest', allowHashBang: true } as const;
  try {
    return parse(source, { ...options, sourceType: 'module' });
  } catch (error) {
    if (error instanceof RangeError) throw error;
    return parse(source, { ...options, sourceType: 'script', allowReturnOutsideFunction: true });
  }
}

/** What the top level exports: `module.exports = X` or `export default X` (a function declared there too). */
function exportedExpression(program: Program): Expression | undefined {
  for (const statement of program.body) {
    if (statement.type === 'ExportDefaultDeclaration') {
      const declared = statement.declaration;
      if (declared.type === 'FunctionDeclaration') return { ...declared, type: 'FunctionExpression' };
      if (declared.type === 'ClassDeclaration') return undefined;
      return declared;
    }
    if (statement.type !== 'ExpressionStatement' || statement.expression.type !== 'AssignmentExpression')
      continue;
    const { left, right, operator } = statement.expression;
    if (operator === '=' && isModuleExports(left)) return right;
  }
  return undefined;
}

function isModuleExports(node: Node): boolean {
  if (node.type !== 'MemberExpression') return false;
  const { object, property, computed } = node as unknown as {
    object: Node;
    property: Node;
    computed: boolean;
  };
  return (
    !computed &&
    object.type === 'Identifier' &&
    (object as unknown as { name: string }).name === 'module' &&
    property.type === 'Identifier' &&
    (property as unknown as { name: string }).name === 'exports'
  );
}

/** The value of a top-level `const name = …` (or `let`, `var`). */
function declaration(program: Program, name: string): Expression | undefined {
  for (const statement of program.body) {
    if (statement.type !== 'VariableDeclaration') continue;
    for (const declarator of statement.declarations)
      if (declarator.id.type === 'Identifier' && declarator.id.name === name)
        return declarator.init ?? undefined;
  }
  return undefined;
}

/** What a function returns, when it is the function's body or its body's first top-level `return`. */
function returned(node: Expression): Expression | undefined {
  if (node.type !== 'ArrowFunctionExpression' && node.type !== 'FunctionExpression') return undefined;
  if (node.body.type !== 'BlockStatement') return node.body;
  for (const statement of node.body.body)
    if (statement.type === 'ReturnStatement') return statement.argument ?? undefined;
  return undefined;
}

/** A literal's value, or NOT_LITERAL; keys of an object whose value is not one are named in `skipped`. */
function valueOf(node: Node, keyPath: string, skipped: string[]): unknown {
  switch (node.type) {
    case 'Literal': {
      const { value } = node as unknown as { value: unknown };
      return value === null || ['string', 'number', 'boolean'].includes(typeof value) ? value : NOT_LITERAL;
    }
    case 'TemplateLiteral': {
      const template = node as unknown as {
        expressions: Node[];
        quasis: Array<{ value: { cooked: string } }>;
      };
      return template.expressions.length === 0 ? template.quasis[0]!.value.cooked : NOT_LITERAL;
    }
    case 'UnaryExpression': {
      const { operator, argument } = node as unknown as { operator: string; argument: Node };
      const number = valueOf(argument, keyPath, skipped);
      if (typeof number !== 'number' || (operator !== '-' && operator !== '+')) return NOT_LITERAL;
      return operator === '-' ? -number : number;
    }
    case 'Identifier':
      return (node as unknown as { name: string }).name === 'undefined' ? undefined : NOT_LITERAL;
    case 'ArrayExpression': {
      const values: unknown[] = [];
      for (const element of (node as unknown as { elements: Array<Node | null> }).elements) {
        const value =
          element && element.type !== 'SpreadElement' ? valueOf(element, keyPath, []) : NOT_LITERAL;
        if (value === NOT_LITERAL) return NOT_LITERAL;
        values.push(value);
      }
      return values;
    }
    case 'ObjectExpression':
      return objectOf(node, keyPath, skipped);
    default:
      return NOT_LITERAL;
  }
}

function objectOf(node: Node, keyPath: string, skipped: string[]): Record<string, unknown> {
  // No prototype: a key `__proto__` is a key like any other.
  const result = Object.create(null) as Record<string, unknown>;
  for (const property of (node as unknown as { properties: Node[] }).properties) {
    if (property.type === 'SpreadElement') {
      skipped.push(`${keyPath}...`);
      continue;
    }
    const { key, value, kind, method, shorthand, computed } = property as unknown as {
      key: Node;
      value: Node;
      kind: string;
      method: boolean;
      shorthand: boolean;
      computed: boolean;
    };
    const name = computed ? undefined : keyName(key);
    const full = keyPath === '' ? (name ?? '[…]') : `${keyPath}.${name ?? '[…]'}`;
    const read = kind === 'init' && !method && !shorthand ? valueOf(value, full, skipped) : NOT_LITERAL;
    if (name === undefined || read === NOT_LITERAL) skipped.push(full);
    else result[name] = read;
  }
  return result;
}

function keyName(key: Node): string | undefined {
  if (key.type === 'Identifier') return (key as unknown as { name: string }).name;
  const { value } = key as unknown as { value: unknown };
  return typeof value === 'string' || typeof value === 'number' ? String(value) : undefined;
}
