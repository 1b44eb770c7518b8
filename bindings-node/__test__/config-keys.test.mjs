// Every configuration key of the core's table, set through each way JS has (a config object
// by its camelCase name, the environment given to `configFromEnv`, TOML text) to a valid value
// other than its default and read back; a refused value throws `invalid_config` naming the
// key. The keys come from `configKeys()`, so a new key is tested here without a new line.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { lro } from './build.mjs'

const keys = lro.configKeys()

/** The config object that sets the key at the camelCase path `camel` to `value`. */
function object(camel, value) {
  const [first, second] = camel.split('.')
  return second === undefined ? { [first]: value } : { [first]: { [second]: value } }
}

/** The value at the camelCase path `camel` of a config view. */
const shown = (view, camel) => camel.split('.').reduce((value, part) => value[part], view)

/** The value as an environment variable holds it. */
const asText = (value) =>
  typeof value === 'string' ? value : Array.isArray(value) ? value.join(',') : JSON.stringify(value)

test('the table lists every key once, with its JS name', () => {
  const names = keys.map((key) => key.name)
  assert.equal(new Set(names).size, names.length)
  assert.ok(names.length >= 20)
  const limit = keys.find((key) => key.name === 'extract.max_output_bytes')
  assert.equal(limit.camel_case, 'extract.maxOutputBytes')
  assert.equal(limit.env, 'ATLATL_PROMPT__OFFLOAD__EXTRACT__MAX_OUTPUT_BYTES')
})

for (const key of keys) {
  test(`${key.name} is set by a config object, the environment and TOML`, () => {
    const { camel_case: camel, sample } = key
    assert.notDeepEqual(sample, key.default)
    assert.deepEqual(shown(lro.withEnv(object(camel, sample), {}), camel), sample)
    assert.deepEqual(shown(lro.configFromEnv({ [key.env]: asText(sample) }), camel), sample)
    const leaf = key.name.split('.').pop()
    const toml = `[${key.toml}]\n${leaf} = ${JSON.stringify(sample)}\n`
    assert.deepEqual(shown(lro.configFromTomlString(toml), camel), sample)
  })

  test(`a bad ${key.name} throws invalid_config naming it`, () => {
    assert.throws(
      () => lro.withEnv(object(key.camel_case, key.bad), {}),
      (err) => {
        assert.equal(err.code, 'invalid_config')
        const leaf = key.camel_case.split('.').pop()
        assert.ok(err.message.includes(key.name) || err.message.includes(leaf), err.message)
        return true
      },
    )
  })
}
