/** The `tidemq up` these tests run against, from the environment the pytest test that
 * runs `npm test` sets (tests/sdk/test_typescript_sdk.py). Without it they fail: they
 * never reach for a server of their own, or the network. */

function required(name: string): string {
  const value = process.env[name];
  if (!value) {
    throw new Error(
      `${name} is not set: these tests run against a live \`tidemq up\`; ` +
        "tests/sdk/test_typescript_sdk.py starts one and sets TIDEMQ_ENDPOINT, " +
        "TIDEMQ_TOKEN, AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY",
    );
  }
  return value;
}

export const server = {
  endpoint: required("TIDEMQ_ENDPOINT"),
  token: required("TIDEMQ_TOKEN"),
  accessKeyId: required("AWS_ACCESS_KEY_ID"),
  secretAccessKey: required("AWS_SECRET_ACCESS_KEY"),
};
