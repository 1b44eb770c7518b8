// Numbers keep their digits ("nothing lost"): a big integer and a long decimal in
// a JSON text are written to the file byte for byte and come back through `extract` as the
// same JSON text. As JS values they are what `JSON.parse` gives (the nearest double): the
// digits live in the file and in the JSON text (`tojson`), not in a JS number.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { lro } from './build.mjs'

const tmp = () => fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'lro-numbers-')))
const BIG = '123456789012345678901234567890'
const NEG = '-9223372036854775809'
const DEC = '3.14159265358979323846264338327950288'

const text = '[' + Array.from({ length: 300 }, (_, i) =>
  `{"id": ${i}, "big": ${BIG}, "neg": ${NEG}, "dec": ${DEC}, "name": "record ${i}"}`).join(', ') + ']'

test('a big integer and a long decimal keep their digits in the file and through extract', () => {
  const outputDir = tmp()
  const out = lro.offloadJson(text, null, { outputDir })
  assert.equal(out.offloaded, true)
  const lines = fs.readFileSync(out.file_path, 'utf8').trimEnd().split('\n')
  assert.equal(lines.length, 301)
  assert.equal(lines[1], `{"id":0,"big":${BIG},"neg":${NEG},"dec":${DEC},"name":"record 0"}`)
  const asText = lro.extract(out.file_path, { query: 'select(.id == 0) | tojson' }, { outputDir })
  assert.deepEqual(asText.results, [lines[1]])
  const where = lro.extract(out.file_path, { where: { id: 7 }, fields: ['big'] }, { outputDir })
  assert.deepEqual(where.results, [{ big: Number(BIG) }])
  // Computed with, exactly: a big integer plus one.
  const sum = lro.extract(out.file_path, { query: 'select(.id == 0) | .big + 1 | tojson' }, { outputDir })
  assert.deepEqual(sum.results, ['123456789012345678901234567891'])
})
