// Types for the test that imports the screen comparison (scripts are plain ESM, not compiled).
export declare function tidyCapture(text: string): string;
export declare function readmeBlock(readme: string, name: string): string | undefined;
export declare function replaceBlock(readme: string, name: string, capture: string): string;
export declare function normaliseScreen(text: string): string;
