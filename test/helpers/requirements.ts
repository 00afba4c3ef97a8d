/**
 * What some tests need from the machine: a PostgreSQL server (see `postgres.ts`), the shared corpus
 * next to the repository, python3. Locally, a test whose need is missing skips and says why
 * (`npm test` lists every skip and its reason at the end). Under CI (`CI=true`), a missing need
 * fails the test file instead, so a CI run cannot be green without having run those tests.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const IN_CI = /^(1|true|yes)$/i.test(process.env.CI ?? '');

/**
 * `missing` (why a need is not met, or false when it is) as a skip reason; under CI it throws, which
 * fails the test file that asked, with the reason.
 */
export function requirement(missing: string | false): string | false {
  if (missing === false || !IN_CI) return missing;
  throw new Error(
    `${missing}\n(CI=true: in CI this is required, so the tests that need it fail instead of skipping)`,
  );
}

/** The shared corpus (`../shared/corpus`): AWS resource schemas and Radius manifests, with trailing '/'. */
export const AWS_CORPUS = fileURLToPath(
  new URL('../../../shared/corpus/aws-resource-schemas/', import.meta.url),
);
export const RADIUS_CORPUS = fileURLToPath(
  new URL('../../../shared/corpus/radius-manifests/', import.meta.url),
);

/** Why the corpus tests skip, or false when the corpus is there (throws under CI). */
export function corpusSkip(): string | false {
  return requirement(
    existsSync(AWS_CORPUS) && existsSync(RADIUS_CORPUS)
      ? false
      : `the shared corpus is not at ${fileURLToPath(new URL('../../../shared/corpus/', import.meta.url))}; check it out next to the repository (../shared/corpus)`,
  );
}

/** Why the tests of the Python example provider skip, or false when python3 runs (throws under CI). */
export function pythonSkip(): string | false {
  const probe = spawnSync('python3', ['--version'], { encoding: 'utf8' });
  return requirement(
    probe.error || probe.status !== 0
      ? `python3 is not available (${probe.error?.message ?? probe.stderr.trim()}); install Python 3 to run the example provider`
      : false,
  );
}

/** Why the AWS CLI tests skip, or false when `aws` runs (throws under CI). */
/**
 * The AWS CLI's own executable. Where `aws` is a pyenv shim (a shell script that starts pyenv, which
 * starts Python), the program it stands for: the shim costs each call about half a second of CPU.
 */
export function awsCli(): string {
  const real = spawnSync('pyenv', ['which', 'aws'], { encoding: 'utf8' });
  const path = real.status === 0 ? real.stdout.trim() : '';
  return path !== '' && existsSync(path) ? path : 'aws';
}

export function awsCliSkip(): string | false {
  const probe = spawnSync(awsCli(), ['--version'], { encoding: 'utf8' });
  return requirement(
    probe.error || probe.status !== 0
      ? `the AWS CLI is not available (${probe.error?.message ?? probe.stderr.trim()}); install it (pip install awscli) to run these tests`
      : false,
  );
}

/** Debian's Chromium, which the console's browser tests drive (`apt-get install chromium`). */
export const CHROMIUM = '/usr/bin/chromium';

/** Why the browser tests skip, or false when Chromium is installed (throws under CI). */
export function chromiumSkip(): string | false {
  return requirement(
    existsSync(CHROMIUM)
      ? false
      : `Chromium is not installed at ${CHROMIUM}; install it (apt-get install --no-install-recommends chromium) to run the console's browser tests`,
  );
}
