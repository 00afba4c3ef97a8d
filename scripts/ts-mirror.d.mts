export declare const root: string;
export declare const mirror: string;
export declare function mirrored(path: string): string;
export declare function prepareMirror(): Promise<{ transformed: number; files: number }>;
