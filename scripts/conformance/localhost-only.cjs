// Loaded with `node --require` in front of the conformance suite: every TCP listener the suite
// opens (its mock servers and callback endpoints) is bound to the IPv4 loopback address, whatever
// host, if any, the suite asked for. Unix sockets and inherited handles are left alone.
//
// The suite reads `server.address().port` right after `listen(0)`. Node binds at once only when
// no host is given; with a host it first resolves it through `dns.lookup`, which answers later,
// and address() would still be null. So the loopback literal is resolved on the spot.
'use strict';
const dns = require('node:dns');
const net = require('node:net');

const LOOPBACK = '127.0.0.1';

const lookup = dns.lookup;
dns.lookup = function lookupLoopbackAtOnce(hostname, options, callback) {
  if (hostname !== LOOPBACK) return lookup.apply(this, arguments);
  const done = typeof options === 'function' ? options : callback;
  if (options && typeof options === 'object' && options.all) done(null, [{ address: LOOPBACK, family: 4 }]);
  else done(null, LOOPBACK, 4);
  return {};
};

/** True for a value that names a TCP port: a number or a string of digits. */
function isPort(value) {
  return typeof value === 'number' || (typeof value === 'string' && /^[0-9]+$/.test(value));
}

/** True for listen() options that describe a TCP port (not a path, fd or handle). */
function isTcpOptions(value) {
  return value !== null && typeof value === 'object'
    && !('path' in value) && !('fd' in value) && !('handle' in value) && !('_handle' in value);
}

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function listenOnLoopback(...args) {
  const callbacks = args.filter((a) => typeof a === 'function');
  const [first] = args;
  let options;
  if (first === undefined || typeof first === 'function') {
    options = { port: 0 }; // listen() / listen(callback): any free port
  } else if (isPort(first)) {
    // listen(port[, host][, backlog][, callback])
    options = { port: Number(first) };
    let rest = args.slice(1);
    if (typeof rest[0] !== 'number' && typeof rest[0] !== 'function') rest = rest.slice(1);
    if (typeof rest[0] === 'number') options.backlog = rest[0];
  } else if (isTcpOptions(first)) {
    options = Object.assign({}, first);
  } else {
    return listen.apply(this, args);
  }
  options.host = LOOPBACK;
  return listen.call(this, options, ...callbacks.slice(0, 1));
};
