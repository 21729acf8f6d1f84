/**
 * The subject of an alarm notification fits SNS: less than 100 characters, printable ASCII. A
 * consumer alarm's generated name (stack, construct path, hash) is long enough to need shortening.
 */
import { alarmSubject } from '../../../emulator/alarms';
import { checkSnsPublish } from '../../../emulator/contract/sns-publish';

const LONG_NAME = 'EffectivelyOnce-PageViewCounterConsumerAlarmsConflictingDuplicates58631B4D';

test.each(['ALARM', 'OK', 'INSUFFICIENT_DATA'])('a long alarm name is shortened to a %s subject SNS accepts', (state) => {
  const subject = alarmSubject(LONG_NAME, state, 'us-east-1');
  expect(subject.length).toBe(99);
  expect(subject).toMatch(new RegExp(`^${state}: "EffectivelyOnce-PageViewCounter.*\\.\\.\\." in US East \\(N\\. Virginia\\)$`));
  expect(checkSnsPublish({ Message: '{}', Subject: subject })).toEqual({ ok: true });
});

test('a short name is kept whole, and characters outside printable ASCII become _', () => {
  expect(alarmSubject('dlq-depth', 'ALARM', 'eu-west-1')).toBe('ALARM: "dlq-depth" in EU (Ireland)');
  expect(alarmSubject('dépôt', 'OK', 'us-east-1')).toBe('OK: "d_p_t" in US East (N. Virginia)');
});
