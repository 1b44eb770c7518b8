// The record encoder of `offload` / `offloadAsync` for MIF memories given as JS objects.
//
// At Light or Medium detail the core keeps a few fields of each MIF memory, so serializing
// the rest (content, embeddings, entities...) is wasted work. When every record is a plain
// object that is a MIF memory by the core's rule, only the fields the core's projection reads
// (asked from the core: `projectionFields`) cross, exactly as JSON.stringify would see them
// (own, enumerable, JSON-representable), and not through JSON.stringify, which spends most
// of its time escaping strings one character at a time: the values' text crosses end to end
// with their lengths (`offloadEncoded`, src/encoded.rs describes the format), a chunk at a
// time, and the addon writes the JSON on another thread while the next chunk is encoded.
// The encoder is JS made once per field list (`new Function`), so V8 sees fixed property
// names. The core then classifies and projects as always, so the file and the result are
// the same as from JSON.stringify's text: the Node tests compare them.
'use strict'

/** Whether JSON.stringify writes `record` as its own fields (no `toJSON`, plain object). */
function plainObject(record) {
  if (record === null || typeof record !== 'object' || Array.isArray(record)) return false
  const proto = Object.getPrototypeOf(record)
  return (proto === Object.prototype || proto === null) && typeof record.toJSON !== 'function'
}

const MIF_RULE_FIELDS = ['id', 'memory_type', 'namespace']

/** The fields the projection of `records` reads, when `records` may be MIF memories cut
 * down to them (a non-empty array, a detail level that reads some fields), else `null`. */
function readFields(projectionFields, records, options) {
  if (!Array.isArray(records) || records.length === 0 || typeof records.toJSON === 'function' || (options !== undefined && options !== null && typeof options !== 'object')) {
    return null
  }
  const operation = typeof options?.operation === 'string' ? options.operation : 'recall'
  const detail = typeof options?.detail === 'string' ? options.detail : options?.detail == null ? null : undefined
  if (detail === undefined) return null // not a detail name: let the core report it
  const fields = projectionFields(operation, detail)
  if (fields === null || fields.length > 30 || !MIF_RULE_FIELDS.every((f) => fields.includes(f))) return null
  return fields
}

/** The text of `value` as the field `name` of a record JSON.stringify writes (its `toJSON`
 * called with the key), or `undefined` when JSON.stringify leaves the field out. */
function fieldJson(name, value) {
  const text = JSON.stringify({ [name]: value })
  return text.length === 2 ? undefined : text.slice(JSON.stringify(name).length + 2, -1)
}

/** The items of an array whose items before `k` are strings, already appended to `text`
 * from `from` on with their lengths in `shape` from `at` on, and whose item `k` is `item`:
 * the items as read once, so that JSON.stringify writes them without reading them again. */
function itemsRead(text, from, shape, at, k, item, array, count) {
  const items = []
  for (let j = 0; j < k; j++) {
    items.push(text.slice(from, from + shape[at + j]))
    from += shape[at + j]
  }
  items.push(item)
  for (let j = k + 1; j < count; j++) items.push(array[j])
  return items
}

/** Arrays longer than this (a sparse one, say) go to JSON.stringify as they are, rather
 * than to a shape of their length. */
const LONGEST_ARRAY = 1 << 16

/** `shape` with room for `words` words. */
function grow(shape, words) {
  const grown = new Int32Array(Math.max(words, 2 * shape.length))
  grown.set(shape)
  return grown
}

/** Records per chunk of `offloadEncoded`, and UTF-16 units of text after which a chunk ends
 * early: about a quarter of a megabyte of memories, so the chunks in flight stay small and
 * the worker starts early. */
const CHUNK_RECORDS = 1024
const CHUNK_UNITS = 1 << 22

const encoders = new Map()

/** A function encoding records from `from` on for `offloadEncoded` (the format is described
 * in src/encoded.rs): `[text, shape, end]`, or `null` at a record that is not a plain object
 * or not a MIF memory by the core's rule (an `id`, and a `memory_type` or a `namespace`, as
 * JSON.stringify writes them). Made once per field list, with the names written in, so V8
 * sees fixed property names. The record's own enumerable keys (`Object.keys`, as
 * JSON.stringify sees them) are matched by a `switch` into a bit set (so at most 30 fields;
 * projections read a dozen): asking `propertyIsEnumerable` per field costs four times as
 * much. Strings and arrays of strings are appended to the text as they are, other values as
 * JSON.stringify writes them in the record (`fieldJson`). */
function encoder(fields) {
  const key = fields.join('\n')
  let encode = encoders.get(key)
  if (encode === undefined) {
    const names = fields.map((field) => JSON.stringify(field))
    const bit = (field) => 1 << fields.indexOf(field)
    const words = fields.length + 1
    const body = [
      `let shape = new Int32Array(${words} * Math.min(records.length - from, ${CHUNK_RECORDS}))`,
      `let text = '', n = 0, r = from`,
      `const end = Math.min(records.length, from + ${CHUNK_RECORDS})`,
      `for (; r < end && text.length < ${CHUNK_UNITS}; r++) {`,
      'const record = records[r]',
      'if (!plainObject(record)) return null',
      'const own = Object.keys(record)',
      'let has = 0',
      'for (let i = 0; i < own.length; i++) {',
      'switch (own[i]) {',
      ...names.map((name, i) => `case ${name}: has |= ${1 << i}; break`),
      '}',
      '}',
      `if (n + ${words} > shape.length) shape = grow(shape, n + ${words})`,
      'const at = n++',
      'let value',
      ...names.map((name, i) => {
        // A value other than a string or an array of strings: as JSON.stringify writes it,
        // or left out as it leaves it out.
        const json = (value) => [
          `const json = fieldJson(${name}, ${value})`,
          `if (json === undefined) has &= ${~(1 << i)}`,
          'else { text += json; shape[n++] = (json.length << 2) | 1 }',
        ].join('\n')
        return [
          `if (has & ${1 << i}) {`,
          `value = record[${name}]`,
          'if (typeof value === "string") { text += value; shape[n++] = value.length << 2 }',
          `else if (Array.isArray(value) && typeof value.toJSON !== "function" && value.length <= ${LONGEST_ARRAY}) {`,
          // Each item read once, as JSON.stringify reads it; undone at the first non-string.
          'const count = value.length, textBefore = text, start = n++',
          `if (n + count + ${words} > shape.length) shape = grow(shape, n + count + ${words})`,
          'let k = 0, item',
          'for (; k < count; k++) { item = value[k]; if (typeof item !== "string") break; text += item; shape[n++] = item.length }',
          'if (k === count) shape[start] = (count << 2) | 2',
          'else {',
          'const items = itemsRead(text, textBefore.length, shape, start + 1, k, item, value, count)',
          'text = textBefore',
          'n = start',
          json('items'),
          '}',
          `} else {`,
          json('value'),
          '}',
          '}',
        ].join('\n')
      }),
      `if (!(has & ${bit('id')}) || !(has & ${bit('memory_type') | bit('namespace')})) return null`,
      'shape[at] = has',
      '}',
      'return [text, shape.subarray(0, n), r]',
    ]
    encode = new Function('plainObject', 'fieldJson', 'itemsRead', 'grow',
      `return function encode(records, from) {\n${body.join('\n')}\n}`)(plainObject, fieldJson, itemsRead, grow)
    encoders.set(key, encode)
  }
  return encode
}

/** `next()` for `offloadEncoded`: the encoded chunks of `records`, one per call, then
 * `undefined`; `null` at a record that is not a MIF memory. */
function chunksOf(records, fields) {
  const encode = encoder(fields)
  let from = 0
  return () => {
    if (from >= records.length) return undefined
    const chunk = encode(records, from)
    if (chunk !== null) from = chunk[2]
    return chunk
  }
}

module.exports = { readFields, chunksOf }
