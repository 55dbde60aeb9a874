/** A binary min-heap of timers ordered by due time, then by the order they were set. */
export interface HeapTimer {
  at: number;
  seq: number;
  fn: () => void;
  cancelled: boolean;
}

export class TimerHeap {
  private readonly items: HeapTimer[] = [];

  get size(): number {
    return this.items.length;
  }

  push(t: HeapTimer): void {
    const a = this.items;
    a.push(t);
    let i = a.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!before(a[i] as HeapTimer, a[p] as HeapTimer)) break;
      swap(a, i, p);
      i = p;
    }
  }

  peek(): HeapTimer | undefined {
    return this.items[0];
  }

  pop(): HeapTimer | undefined {
    const a = this.items;
    const top = a[0];
    const last = a.pop();
    if (a.length > 0 && last) {
      a[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < a.length && before(a[l] as HeapTimer, a[m] as HeapTimer)) m = l;
        if (r < a.length && before(a[r] as HeapTimer, a[m] as HeapTimer)) m = r;
        if (m === i) break;
        swap(a, i, m);
        i = m;
      }
    }
    return top;
  }
}

function before(x: HeapTimer, y: HeapTimer): boolean {
  return x.at < y.at || (x.at === y.at && x.seq < y.seq);
}

function swap(a: HeapTimer[], i: number, j: number): void {
  const t = a[i] as HeapTimer;
  a[i] = a[j] as HeapTimer;
  a[j] = t;
}
