import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { EventPipelineStack } from '../../example';
import { testApp } from '../lib/support';

/** One finding of `cfn-lint --format json`. */
interface LintFinding {
  readonly Level: 'Error' | 'Warning' | 'Informational';
  readonly Message: string;
  readonly Location: { readonly Path: readonly (string | number)[] };
  readonly Rule: { readonly Id: string };
}

/** A CloudFormation template, as far as the allow-list reads it. */
type TemplateResources = Record<string, { Type: string; DependsOn?: string[]; Properties?: Record<string, unknown> }>;

/** A warning kind that stays, where it may appear, and why it is not fixed. */
interface AllowedWarning {
  readonly rule: string;
  readonly appliesTo: (finding: LintFinding, resources: TemplateResources) => boolean;
  readonly reason: string;
}

/** The logical ID of the resource that `finding` points into, when it points into one. */
function resourceOf(finding: LintFinding): string | undefined {
  const [section, id] = finding.Location.Path;
  return section === 'Resources' && typeof id === 'string' ? id : undefined;
}

const ALLOWED_WARNINGS: readonly AllowedWarning[] = [
  {
    rule: 'W3005',
    // A consumer function's DependsOn on its own execution role, which its Role GetAtt implies.
    appliesTo: (finding, resources) => {
      const [, id, key, index] = finding.Location.Path;
      const fn = resources[String(id)];
      const role = (fn?.Properties?.Role as { 'Fn::GetAtt'?: string[] } | undefined)?.['Fn::GetAtt']?.[0];
      return fn?.Type === 'AWS::Lambda::Function' && key === 'DependsOn' && fn.DependsOn?.[Number(index)] === role;
    },
    reason:
      'aws-cdk-lib makes a function depend on its whole role construct, so that the role\'s policy is ' +
      'attached before the function can run; the role half of that DependsOn is redundant with the GetAtt, ' +
      'and harmless. Removing it takes a raw DependsOn override, which would also drop any dependency ' +
      'added to the function later.',
  },
];

/** Runs cfn-lint on one template; fails, saying how to install it, when it is not on the PATH. */
function cfnLint(templatePath: string): LintFinding[] {
  const run = spawnSync('cfn-lint', ['--format', 'json', '--', templatePath], { encoding: 'utf8' });
  if ((run.error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT') {
    throw new Error('cfn-lint is not installed: `pip install cfn-lint` (.ci/run does it where it is missing)');
  }
  if (run.error) throw run.error;
  // Exit codes are bit flags of the levels found (2 error, 4 warning, 8 informational); 1 is a crash.
  if (run.status === 1 || !run.stdout.trim().startsWith('[')) {
    throw new Error(`cfn-lint failed (exit ${run.status}): ${run.stderr || run.stdout}`);
  }
  return JSON.parse(run.stdout) as LintFinding[];
}

/** "<rule> <path>: <message>", for a readable failure. */
function describeFinding(finding: LintFinding): string {
  return `${finding.Rule.Id} ${finding.Location.Path.join('/')}: ${finding.Message}`;
}

describe('cfn-lint on the synthesized template', () => {
  let outdir = '';
  let findings: LintFinding[] = [];
  let resources: TemplateResources = {};

  beforeAll(() => {
    outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'eo-cfn-lint-'));
    const app = testApp({ outdir });
    const stack = new EventPipelineStack(app, 'EffectivelyOnce', { alarmEmail: 'oncall@example.com' });
    const templatePath = app.synth().getStackByName(stack.stackName).templateFullPath;
    resources = (JSON.parse(fs.readFileSync(templatePath, 'utf8')) as { Resources: TemplateResources }).Resources;
    findings = cfnLint(templatePath);
  });
  afterAll(() => fs.rmSync(outdir, { recursive: true, force: true }));

  const isAllowed = (finding: LintFinding, allowed: AllowedWarning): boolean =>
    allowed.rule === finding.Rule.Id && allowed.appliesTo(finding, resources);

  test('finds no error', () => {
    expect(findings.filter((f) => f.Level === 'Error').map(describeFinding)).toEqual([]);
  });

  test('finds no warning that the allow-list does not explain', () => {
    const warnings = findings.filter((f) => f.Level === 'Warning');
    const unexplained = warnings.filter((f) => !ALLOWED_WARNINGS.some((allowed) => isAllowed(f, allowed)));
    expect(unexplained.map(describeFinding)).toEqual([]);
  });

  test('W3005 is allowed on every function and on nothing else, with its reason', () => {
    const [allowed] = ALLOWED_WARNINGS.filter((entry) => entry.rule === 'W3005');
    const matched = findings.filter((f) => isAllowed(f, allowed)).map(resourceOf);
    const functions = Object.keys(resources).filter((id) => resources[id].Type === 'AWS::Lambda::Function');
    expect(matched.sort()).toEqual(functions.sort());
    expect(allowed.reason).toMatch(/redundant with the GetAtt, and harmless/);
  });
});
