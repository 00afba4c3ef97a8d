export declare const root: string;
export declare function distIsCurrent(): boolean;
