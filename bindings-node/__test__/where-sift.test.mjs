// Structured queries against sift, the oracle: random filter documents over random records
// and a corpus of memories, selected by LRO (from the offloaded file) and by sift (in memory).
// The generator stays where sift follows MongoDB; where sift departs from MongoDB's
// documentation (and LRO follows the documentation), the departure is pinned below.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import sift from 'sift'
import lro from './build.mjs'
import { makeMemories } from './fixtures/memories.mjs'

const outputDir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'lro-sift-')))
process.on('exit', () => fs.rmSync(outputDir, { recursive: true, force: true }))

/** mulberry32: reproducible cases without a dependency. */
function rng(seed) {
  let a = seed >>> 0
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  return {
    below: (n) => Math.floor(next() * n),
    chance: (p) => next() < p,
    pick: (items) => items[Math.floor(next() * items.length)],
  }
}

const WORDS = ['cache', 'Cache', 'db', 'api', 'ops', 'été']
const NUMBERS = [-2, 0, 1, 2, 3, 4.5, 7, 9.25]

// No nested arrays (sift looks into arrays at any depth, MongoDB one level) and objects with
// their keys in one order (sift compares embedded documents in any order).
function scalar(r) {
  return r.pick([null, true, false, r.pick(NUMBERS), r.pick(NUMBERS), r.pick(WORDS), r.pick(WORDS)])
}

function subObject(r) {
  const doc = {}
  if (r.chance(0.8)) doc.x = r.pick(NUMBERS)
  if (r.chance(0.8)) doc.y = r.pick(WORDS)
  return doc
}

function record(r, i) {
  const doc = { id: i }
  if (r.chance(0.85)) doc.n = r.chance(0.8) ? r.pick(NUMBERS) : scalar(r)
  if (r.chance(0.85)) doc.s = r.chance(0.85) ? r.pick(WORDS) : scalar(r)
  if (r.chance(0.8)) doc.tags = Array.from({ length: r.below(4) }, () => r.pick(WORDS))
  if (r.chance(0.7)) doc.o = r.chance(0.6) ? subObject(r) : Array.from({ length: r.below(3) }, () => subObject(r))
  if (r.chance(0.6)) doc.m = r.chance(0.7) ? scalar(r) : Array.from({ length: 1 + r.below(2) }, () => scalar(r))
  return doc
}

// No positions (`tags.0`): sift indexes into strings and takes a position past the end of an
// array as no match for null (see the departures); the jq test and the vectors cover them.
const FIELDS = ['n', 's', 'tags', 'o', 'o.x', 'o.y', 'm', 'id', 'nope']

function condition(r, field, depth) {
  // Comparison operands are scalars of one bracket at a time, never null: sift compares
  // across types as JavaScript does, and takes [] for $gte: null.
  const operand = () => r.pick([r.pick(NUMBERS), r.pick(WORDS), r.pick(WORDS)])
  switch (r.below(15)) {
    case 0:
      return operand()
    case 1:
      return { $eq: r.chance(0.9) ? operand() : null }
    case 2:
      return { $ne: r.chance(0.85) ? operand() : null }
    case 3:
      return { [r.pick(['$gt', '$gte', '$lt', '$lte'])]: operand() }
    case 4:
      return { $gt: r.pick(NUMBERS), $lte: r.pick(NUMBERS) }
    case 5:
      return { $in: Array.from({ length: 1 + r.below(3) }, () => (r.chance(0.85) ? operand() : null)) }
    case 6:
      return { $nin: Array.from({ length: 1 + r.below(2) }, operand) }
    case 7:
      return { $exists: r.chance(0.5) }
    case 8:
      // sift knows no "int", "double" or "object" alias (see the departures).
      return { $type: r.pick(['string', 'number', 'array', 'null', 'bool']) }
    case 9:
      return { $regex: r.pick(['^c', 'ach', 'E$', '^(db|api)$', 'p']), $options: r.pick(['', 'i']) }
    case 10:
      return field === 'tags' ? { $size: r.below(4) } : r.pick(WORDS)
    case 11:
      return field === 'tags' ? { $all: Array.from({ length: 1 + r.below(2) }, () => r.pick(WORDS)) } : r.pick(WORDS)
    case 12:
      return field === 'o' && depth < 2 ? { $elemMatch: { x: condition(r, 'x', depth + 1) } } : r.pick(WORDS)
    case 13:
      return ['tags', 'm'].includes(field) ? { $elemMatch: { $in: [r.pick(WORDS), r.pick(NUMBERS)] } } : operand()
    default: {
      if (depth >= 2) return r.pick(WORDS)
      const inner = condition(r, field, depth + 1)
      const operators = inner !== null && typeof inner === 'object' && Object.keys(inner).length > 0 && Object.keys(inner).every((k) => k.startsWith('$'))
      return { $not: operators ? inner : { $eq: inner } }
    }
  }
}

function filterDoc(r, depth = 0) {
  const doc = {}
  for (let k = r.below(3); k > 0; k--) {
    if (depth < 2 && r.chance(0.2)) {
      doc[r.pick(['$and', '$or', '$nor'])] = Array.from({ length: 1 + r.below(3) }, () => filterDoc(r, depth + 1))
    } else {
      const field = r.pick(FIELDS)
      doc[field] = condition(r, field, depth)
    }
  }
  return doc
}

function offloaded(records) {
  const response = lro.offload(records, { operation: 'rand', detail: 'full' }, { outputDir, thresholdTokens: 0 })
  assert.equal(response.offloaded, true)
  return response.file_path
}

const ours = (file, where) => lro.extract(file, { where, fields: ['id'] }, { outputDir }).results.map((r) => r.id)
const theirs = (records, where) => records.filter(sift(where)).map((r) => r.id)

for (const seed of [1, 2, 3, 4]) {
  test(`random filters select what sift selects (seed ${seed})`, () => {
    const r = rng(seed)
    const records = Array.from({ length: 60 }, (_, i) => record(r, i))
    const file = offloaded(records)
    let matched = 0
    for (let k = 0; k < 150; k++) {
      const where = filterDoc(r)
      const want = theirs(records, where)
      assert.deepEqual(ours(file, where), want, JSON.stringify(where))
      matched += want.length > 0
    }
    assert.ok(matched > 30, 'the generator should find records')
  })
}

test('corpus queries select what sift selects, through extractAsync and groupBy', async () => {
  const records = makeMemories(300)
  const file = offloaded(records)
  for (const where of [
    { namespace: { $regex: '^_semantic' }, tags: 'api', 'provenance.confidence': { $gte: 0.7 } },
    { $or: [{ memory_type: 'episodic' }, { tags: { $all: ['caching', 'api'] } }] },
    { entities: { $elemMatch: { name: 'cache', type: 'component' } }, status: { $ne: 'archived' } },
    { 'temporal.ttl': null, created: { $lt: '2026-10-10' } },
    { title: { $not: { $regex: 'decision 1', $options: 'i' } }, 'tags.1': { $nin: ['storage', 'testing'] } },
  ]) {
    const got = (await lro.extractAsync(file, { where, fields: ['id'] }, { outputDir })).results.map((m) => m.id)
    const want = theirs(records, where)
    assert.ok(want.length > 0, JSON.stringify(where))
    assert.deepEqual(got, want, JSON.stringify(where))
  }
  // groupBy in camelCase; the filter's keys are field names and reach the core as they are.
  const groups = lro.extract(file, { where: { 'provenance.trust_level': 'high' }, groupBy: 'memory_type' }, { outputDir }).results[0]
  assert.deepEqual(groups.map((g) => g.count), [100, 100, 100])
})

test('where sift departs from MongoDB, LRO follows the documentation', () => {
  const records = [
    { id: 0, a: [[1, 2], 3] },
    { id: 1, a: { x: 1, y: 2 } },
    { id: 2, a: [] },
    { id: 3, a: 5 },
    { id: 4, b: 'abc' },
    { id: 5, t: [] },
  ]
  const file = offloaded(records)
  const both = (where) => [ours(file, where), theirs(records, where)]
  // Arrays are looked into one level deep; sift finds 1 in [[1, 2], 3].
  assert.deepEqual(both({ a: { $ne: 1 } }), [[0, 1, 2, 3, 4, 5], [1, 2, 3, 4, 5]])
  // $all with no values matches nothing (the server parses it as always false).
  assert.deepEqual(both({ a: { $all: [] } }), [[], [0, 1, 2, 3, 4, 5]])
  // $gte: null is {a: null}: null or missing; sift also takes an empty array.
  assert.deepEqual(both({ a: { $gte: null } }), [[4, 5], [2, 4, 5]])
  // Embedded documents are equal field by field, in order ("including the field order").
  assert.deepEqual(both({ a: { y: 2, x: 1 } }), [[], [1]])
  // Type bracketing: an object is never greater than an array; sift compares as JavaScript.
  assert.deepEqual(both({ a: { $gt: [1] } }), [[0], [0, 1]])
  // A position past the end of an array is a missing field, which null matches (as
  // `$exists: false` finds it missing); sift matches it with $exists but not with null.
  assert.deepEqual(both({ 't.0': null }), [[0, 1, 2, 3, 4, 5], [0, 1, 2, 3, 4]])
  assert.deepEqual(both({ 't.0': { $exists: false } }), [[0, 1, 2, 3, 4, 5], [0, 1, 2, 3, 4, 5]])
  // A position on a string is a missing field; sift indexes into the string.
  assert.deepEqual(both({ 'b.0': 'a' }), [[], [4]])
  // sift knows no "int", "double" or "object" alias, and no $comment.
  assert.deepEqual(ours(file, { a: { $type: 'int' } }), [0, 3])
  assert.throws(() => theirs(records, { a: { $type: 'int' } }))
  assert.deepEqual(ours(file, { a: { $type: 'object' } }), [1])
  assert.throws(() => theirs(records, { a: { $type: 'object' } }))
  assert.deepEqual(ours(file, { a: 5, $comment: 'why' }), [3])
  assert.throws(() => theirs(records, { a: 5, $comment: 'why' }))
})
