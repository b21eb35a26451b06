// Types for tests that drive the private tmux (scripts are plain ESM, not compiled).
export interface TmuxPane {
  readonly panePid: number;
  screen(): string;
  track(): void;
  kill(): Promise<void>;
  children(): number[];
  until(check: (screen: string) => boolean, what: string, ms?: number): Promise<string>;
  line(text: string): void;
  keys(...keys: string[]): void;
}
export interface PrivateTmux {
  session(name: string, command: string, opts: { width: number; height: number; env?: Record<string, string> }): TmuxPane;
  stop(): Promise<void>;
}
export declare function hasTmux(): boolean;
export declare function processTree(pid: number): number[];
export declare function alive(pid: number): boolean;
export declare function privateTmux(socket: string, env: Record<string, string | undefined>): PrivateTmux;
