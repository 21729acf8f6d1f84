/**
 * The template the architecture page is generated from. In process with bundling skipped: the
 * same template as `cdk synth` apart from asset hashes, which the page does not show, in about a
 * second instead of a bundling run.
 */
import { App } from 'aws-cdk-lib';
import * as cdkJson from '../../cdk.json';
import { EventPipelineStack } from '../../example';
import { ensureSynthesized } from '../../emulator/stack/cloud-assembly';
import type { Template } from '../../aws/cloudformation/template';
import { DEFAULT_STACK_NAME } from '../../aws/stack-name';

/** Synthesizes the stack in this process, with the project's feature flags and construct paths. */
export function synthesizeInProcess(): Template {
  const app = new App({
    context: { ...cdkJson.context, 'aws:cdk:bundling-stacks': [], 'aws:cdk:enable-path-metadata': true },
    // The page reads the template, nothing more: CloudFormation's schema validation would only cost time.
    builtinCloudFormationValidation: false,
  });
  const stack = new EventPipelineStack(app, DEFAULT_STACK_NAME);
  return app.synth().getStackByName(stack.stackName).template as Template;
}

/** The template `cdk synth` wrote to the checkout's `cdk.out` (synthesizing first when it is stale). */
export async function synthesizedTemplate(checkout: string): Promise<Template> {
  return (await ensureSynthesized({ root: checkout })).template;
}
