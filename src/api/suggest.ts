// "Did you mean …?" for front-ends: the one edit-distance rule drover uses for
// commands, flags, option keys and queue names. Its own small module, so
// help and an unknown command load nothing else.
export {suggest} from '../base/suggest.js'
