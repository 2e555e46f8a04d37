import { parseMemoryInfo } from './memory-guard';
import { parseClusterNodes } from '../config';

describe('INFO memory', () => {
  it('when the section is read, then used_memory and maxmemory are taken (0: no limit)', () => {
    const info = '# Memory\r\nused_memory:1048576\r\nused_memory_human:1.00M\r\nmaxmemory:268435456\r\nmaxmemory_human:256.00M\r\n';
    expect(parseMemoryInfo(info)).toEqual({ used: 1_048_576, max: 268_435_456 });
    expect(parseMemoryInfo('used_memory:10\r\nmaxmemory:0\r\n')).toEqual({ used: 10, max: 0 });
  });
});

describe('REDIS_CLUSTER_NODES', () => {
  it('when it lists host:port entries, then each is parsed (IPv6 in brackets)', () => {
    expect(parseClusterNodes(' redis-0.redis:6379, 10.0.0.2:7001 ,[::1]:7002')).toEqual([
      { host: 'redis-0.redis', port: 6379 },
      { host: '10.0.0.2', port: 7001 },
      { host: '::1', port: 7002 },
    ]);
  });

  it.each(['redis-0', 'redis:0', 'redis:70000', 'redis://a:1', 'a b:1'])('when an entry is %j, then it is refused', (value) => {
    expect(() => parseClusterNodes(value)).toThrow('is not host:port');
  });
});
