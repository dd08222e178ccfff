// The engine's names (GET /api/vocabulary, docs/protocol.md "Names"): the
// kinds of figures, features, scores and steps, the goods, tile sets and
// expansions, as the server's engine gives them. The client writes none of
// them (tests/cli/test_names.sh): lists come from here, and where the client
// draws or words a kind its own way it keys a table by the name it receives.
//
// loadVocabulary() fetches them once (the browser keeps the answer and asks
// again with its ETag: a 304 while the server is the same); `names` holds
// them after that, empty lists before.

const EMPTY = {
  figures: [], features: [], score_kinds: [], goods: [], tile_sets: [], steps: [],
  expansions: [], farm_scoring: [], ports: [], tiles: [], figure_words: [],
};

// eslint-disable-next-line import/no-mutable-exports
export let names = EMPTY;
let loading = null;

export function loadVocabulary() {
  if (!loading) {
    loading = fetch('/api/vocabulary').then((r) => {
      if (!r.ok) throw new Error(`vocabulary: HTTP ${r.status}`);
      return r.json();
    }).then((v) => { names = { ...EMPTY, ...v }; return names; })
      .catch((e) => { loading = null; throw e; });
  }
  return loading;
}

// The tile step: the engine's first kind of step (CARC_STEP_TILE is 0), the
// one every rule set has; every other kind is played through the generic
// decision (game.js).
export const tileStep = () => names.steps[0];

// The kind of step a log entry records: the name of a step other than the
// tile step that is one of its keys (its decision, docs/protocol.md "Log
// entry"), else the tile step.
export function entryStep(e) {
  return names.steps.slice(1).find((s) => Object.prototype.hasOwnProperty.call(e || {}, s)) || tileStep();
}
