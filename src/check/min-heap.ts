/** A binary min-heap of numbers (end times of requests in flight). */
export class MinHeap {
  private readonly a: number[] = [];

  get size(): number {
    return this.a.length;
  }

  peek(): number | undefined {
    return this.a[0];
  }

  push(v: number): void {
    const a = this.a;
    a.push(v);
    let i = a.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if ((a[p] ?? 0) <= v) break;
      a[i] = a[p] ?? 0;
      i = p;
    }
    a[i] = v;
  }

  pop(): number | undefined {
    const a = this.a;
    const top = a[0];
    const last = a.pop();
    if (a.length === 0 || last === undefined) return top;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= a.length) break;
      const r = l + 1;
      const c = r < a.length && (a[r] ?? 0) < (a[l] ?? 0) ? r : l;
      if ((a[c] ?? 0) >= last) break;
      a[i] = a[c] ?? 0;
      i = c;
    }
    a[i] = last;
    return top;
  }
}
