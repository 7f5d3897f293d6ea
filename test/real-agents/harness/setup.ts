// Runs before every file of the agents project: no real agent may start unless
// the only network it can reach is loopback.
import {assertLoopbackOnly} from './network.js'

assertLoopbackOnly()
